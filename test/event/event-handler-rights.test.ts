/**
 * An event handler acts with the rights of whoever made it, and no longer than they hold them
 * (document 1, Authentication 5: "Rights are scopes. A token lacking the scope for the command
 * gets 403"; the seller can "edit or restrict active client accesses"). A token with admin_w but
 * no order rights could set any order's flags, mail every buyer and copy order data into tasks
 * through a handler; a client's webhook kept receiving the seller's orders after its access was
 * revoked and after `kontor client disable`. Rules: lib/event/README.md ("Rights").
 */
import { expect } from 'chai';
import { allOrdersOf } from '../../lib/access';
import { disableClient, disableLogin, setPassword } from '../../lib/auth/credential-lockout.service';
import { db } from '../../lib/db/knex';
import { eventActions } from '../../lib/event/event-catalog';
import { handlerScopes } from '../../lib/event/event-handler-scopes';
import { createOrder } from '../../lib/order/order.service';
import { call, newSeller, Seller, tokenFor } from '../support/api';
import { boundClient } from '../support/bound-client';
import { useEventsWorker } from './events-worker';
import { waitFor } from './servers';

const handler = (section: string, type: string, action: Record<string, unknown>) => ({ event_handler: { type: { id: type }, section, action } });
const orderFlag = handler('order', 'created', { id: 'order_flag', required: { flag: 'is_cancelled', value: 'true' } });
const phishing = handler('order', 'created', {
  id: 'mail',
  required: { to: '{customer.email}', subject: 'Your order', template: 'Please confirm your card at https://evil.example/' },
});
const copyToTask = handler('order', 'created', {
  id: 'task',
  required: { title: '{customer.email} {invoice_amount}', text: '{infos}', priority: 'low' },
});
const customerWebhook = handler('customer', 'created', {
  id: 'notification',
  required: { url: 'https://hooks.example.com/customers', format: 'post', target_name: 'crm' },
});
const stockTask = handler('stock', 'cia', { id: 'task', required: { title: 'Reorder {stock_id}', text: 'Only {quantity} left', priority: 'high' } });

describe('event handlers act only with their maker’s rights (lib/event README, "Rights")', function () {
  this.timeout(60000);

  describe('creation needs the scopes of what the action does', () => {
    let seller: Seller;
    before(async () => {
      seller = await newSeller();
    });

    const refused = async (scope: string, body: object, missing: string) => {
      const token = await tokenFor(seller.login, seller.password, scope);
      const res = await call('admin/event/handler/', { token, body });
      expect(res.status, `${scope}: ${res.text}`).to.equal(403);
      expect(res.body.ack).to.equal('error');
      expect(res.body.error![0]).to.deep.include({ error: 'insufficient_scope' });
      expect(res.body.error![0]!.description).to.contain(missing);
      expect(res.headers.get('www-authenticate')).to.equal(`Bearer error="insufficient_scope", scope="${missing}"`);
    };

    it('when a token with admin_w but no order rights posts an order_flag, a mail or a task handler on orders, then 403 insufficient_scope naming the scope, and nothing is stored', async () => {
      // The framework's own answer for the same token at GET order/: the model of the refusal.
      const adminOnly = await tokenFor(seller.login, seller.password, 'admin_w');
      const orders = await call('order/', { token: adminOnly });
      expect(orders.status).to.equal(403);
      expect(orders.headers.get('www-authenticate')).to.equal('Bearer error="insufficient_scope", scope="order_r"');

      await refused('admin_w', orderFlag, 'order_w');
      await refused('admin_w order_r', orderFlag, 'order_w');
      await refused('admin_w', phishing, 'order_r');
      await refused('admin_w order_w', phishing, 'order_r');
      await refused('admin_w task_r task_w', copyToTask, 'order_r');
      await refused('admin_w order_r task_r', copyToTask, 'task_w');
      await refused('admin_w order_r', customerWebhook, 'customer_r');
      await refused('admin_w task_w', stockTask, 'stock_r');
      expect((await call('admin/event/handler/', { token: seller.token })).body.event_handler).to.deep.equal([]);
    });

    it('when the token holds the scopes of the action, then the handler is created', async () => {
      const seller = await newSeller();
      for (const [scope, body] of [
        ['admin_w order_w', orderFlag],
        ['admin_w order_r', phishing],
        ['admin_w order_r task_w', copyToTask],
        ['admin_w customer_r', customerWebhook],
        ['admin_w stock_r task_w', stockTask],
      ] as const) {
        const token = await tokenFor(seller.login, seller.password, scope);
        const res = await call('admin/event/handler/', { token, body });
        expect(res.status, `${scope}: ${res.text}`).to.equal(201);
      }
      expect((await call('admin/event/handler/', { token: seller.token })).body.event_handler).to.have.length(5);
    });

    it('when the catalog is read, then every action of every section has its scopes in the one table', () => {
      for (const a of eventActions) expect(handlerScopes(a.section, a.action), `${a.section} ${a.action}`).to.not.equal(undefined);
    });
  });

  describe("a client's handlers go with its access", () => {
    const setting = useEventsWorker('evhrights', { settings: () => ({ webhookTimeoutMs: 2000 }) });

    /** A client bound to the seller's portal account, its webhook handler, and the client access the seller sees. */
    const clientWithWebhook = async (seller: Seller, name: string, path: string) => {
      const client = await boundClient(seller, name, seller.portalAccountId, 'admin_r admin_w order_r');
      const made = await call('admin/event/handler/', {
        token: client.token,
        body: handler('order', 'created', { id: 'notification', required: { url: `${setting.receiver.base}${path}`, format: 'post', target_name: name } }),
      });
      expect(made.status, made.text).to.equal(201);
      const accesses = (await call('admin/client_access/', { token: seller.token })).body.client_access as { id: number; client: { id: string } }[];
      const access = accesses.find((a) => a.client.id === client.clientId)!;
      return { ...client, handlerId: made.body.event_handler_id as number, accessId: access.id };
    };
    const order = async (seller: Seller) => {
      const res = await call('order/', { token: seller.token, body: { order: { customer: { email: `buyer-${seller.id}@example.com` } } } });
      expect(res.status, res.text).to.equal(201);
      return res.body.order_id as string;
    };
    const handlerIds = async (seller: Seller) =>
      ((await call('admin/event/handler/', { token: seller.token })).body.event_handler as { id: number }[]).map((h) => h.id);

    /** The seller's own handler delivered for the order: the events of that order have been dispatched. */
    const delivered = (path: string, orderId: string) =>
      waitFor(
        async () => setting.receiver.received.some((r) => r.path === path && (JSON.parse(r.body) as { order_id: string }).order_id === orderId),
        `the delivery of ${orderId} to ${path}`,
      );

    it("when the seller revokes a client's access, then the client's handlers are gone and the next order is not delivered to it; the seller's own stay", async () => {
      const seller = await newSeller();
      const clientPath = `/client/${seller.id}`;
      const ownPath = `/own/${seller.id}`;
      const client = await clientWithWebhook(seller, `evh-revoke-${seller.id}`, clientPath);
      const own = await call('admin/event/handler/', {
        token: seller.token,
        body: handler('order', 'created', { id: 'notification', required: { url: `${setting.receiver.base}${ownPath}`, format: 'post', target_name: 'own' } }),
      });
      expect(own.status, own.text).to.equal(201);
      // Before: the client's webhook receives the order.
      const first = await order(seller);
      await delivered(clientPath, first);

      const revoked = await call(`admin/client_access/${client.accessId}/`, { token: seller.token, method: 'DELETE' });
      expect(revoked.status, revoked.text).to.equal(200);
      expect(await handlerIds(seller)).to.deep.equal([own.body.event_handler_id]);
      expect((await call(`admin/event/handler/${client.handlerId}/`, { token: seller.token })).status).to.equal(404);

      const next = await order(seller);
      await delivered(ownPath, next);
      await new Promise((resolve) => setTimeout(resolve, 500));
      const toClient = setting.receiver.received.filter((r) => r.path === clientPath).map((r) => (JSON.parse(r.body) as { order_id: string }).order_id);
      expect(toClient).to.deep.equal([first]);
    });

    it('when the operator disables the client (kontor client disable), then its handlers at every seller are gone and nothing more is delivered to it', async () => {
      const seller = await newSeller();
      const clientPath = `/disabled/${seller.id}`;
      const ownPath = `/own-d/${seller.id}`;
      const client = await clientWithWebhook(seller, `evh-disable-${seller.id}`, clientPath);
      const own = await call('admin/event/handler/', {
        token: seller.token,
        body: handler('order', 'created', { id: 'notification', required: { url: `${setting.receiver.base}${ownPath}`, format: 'post', target_name: 'own' } }),
      });
      expect(own.status, own.text).to.equal(201);

      const answer = await disableClient(client.clientId);
      expect(answer.revoked_client_accesses).to.equal(1);
      expect((await call('admin/event/handler/', { token: client.token })).status).to.equal(401);
      expect(await handlerIds(seller)).to.deep.equal([own.body.event_handler_id]);

      const next = await order(seller);
      await delivered(ownPath, next);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(setting.receiver.received.filter((r) => r.path === clientPath)).to.deep.equal([]);
    });

    it("when the operator disables the seller's login (kontor user disable), then the clients' handlers are gone, the seller's own are kept and do not run; a new password runs them again", async () => {
      const seller = await newSeller();
      const clientPath = `/login-client/${seller.id}`;
      const ownPath = `/login-own/${seller.id}`;
      await clientWithWebhook(seller, `evh-login-${seller.id}`, clientPath);
      const own = await call('admin/event/handler/', {
        token: seller.token,
        body: handler('order', 'created', { id: 'notification', required: { url: `${setting.receiver.base}${ownPath}`, format: 'post', target_name: 'own' } }),
      });
      expect(own.status, own.text).to.equal(201);

      await disableLogin(seller.login);
      // No token of the account works any more: the handlers as stored.
      expect(await db()('event_handler').where({ account_id: seller.id }).pluck('id')).to.deep.equal([own.body.event_handler_id]);
      // An order arrives meanwhile (a channel import writes it as the service's own work).
      const orderId = await createOrder({ ...allOrdersOf(seller.id), portalAccountId: null }, { customer: { email: `buyer-${seller.id}@example.com` } });
      const result = await waitFor(async () => {
        const row = (await db()('outbox')
          .where({ account_id: seller.id, job_name: 'event.emit', state: 'completed' })
          .whereRaw("payload->>'recordId' = ? AND payload->>'type' = 'created' AND payload->>'section' = 'order'", [orderId])
          .first('result')) as { result: { runs: unknown[]; skipped: { handler_id: number; reason: string }[] } } | undefined;
        return row?.result;
      }, 'the order created event to be dispatched');
      expect(result.runs).to.deep.equal([]);
      expect(result.skipped).to.have.length(1);
      expect(result.skipped[0]).to.include({ handler_id: own.body.event_handler_id });
      expect(result.skipped[0]!.reason).to.contain('disabled');

      await setPassword(seller.login, 'evh-new-password-1');
      const token = await tokenFor(seller.login, 'evh-new-password-1');
      const next = await call('order/', { token, body: { order: { customer: { email: `buyer-${seller.id}@example.com` } } } });
      expect(next.status, next.text).to.equal(201);
      await delivered(ownPath, next.body.order_id as string);
      const toOwn = setting.receiver.received.filter((r) => r.path === ownPath).map((r) => (JSON.parse(r.body) as { order_id: string }).order_id);
      expect(toOwn).to.deep.equal([next.body.order_id]);
      expect(setting.receiver.received.filter((r) => r.path === clientPath)).to.deep.equal([]);
    });
  });
});
