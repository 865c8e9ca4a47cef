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
import { createPortalAccount } from '../../lib/admin/portal-account-admin.service';
import { disableClient, disableLogin, setPassword } from '../../lib/auth/credential-lockout.service';
import { db } from '../../lib/db/knex';
import { eventActions } from '../../lib/event/event-catalog';
import { handlerScopes, narrowedHandlers } from '../../lib/event/event-handler-scopes';
import { createOrder } from '../../lib/order/order.service';
import { call, newSeller, Seller, tokenFor } from '../support/api';
import { boundClient } from '../support/bound-client';
import { untilOneWaitsForALock } from '../support/lock-wait';
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
  describe("a client's handlers follow its access when the seller restricts it", () => {
    const setting = useEventsWorker('evhrestrict');

    /** A client granted all portal accounts with order_r order_w admin_r admin_w, its order_flag (cancel) and webhook handlers, and its client access. */
    const clientWithHandlers = async (seller: Seller, name: string) => {
      const client = await boundClient(seller, name, 'all', 'order_r order_w admin_r admin_w');
      const flag = await call('admin/event/handler/', { token: client.token, body: orderFlag });
      expect(flag.status, flag.text).to.equal(201);
      const webhook = await call('admin/event/handler/', {
        token: client.token,
        body: handler('order', 'created', { id: 'notification', required: { url: `${setting.receiver.base}/${name}`, format: 'post', target_name: name } }),
      });
      expect(webhook.status, webhook.text).to.equal(201);
      const accesses = (await call('admin/client_access/', { token: seller.token })).body.client_access as { id: number; client: { id: string } }[];
      const accessId = accesses.find((a) => a.client.id === client.clientId)!.id;
      return { ...client, flagId: flag.body.event_handler_id as number, webhookId: webhook.body.event_handler_id as number, accessId };
    };
    const restrict = async (seller: Seller, accessId: number, restriction: object) => {
      const res = await call(`admin/client_access/${accessId}/`, { token: seller.token, body: { client_access: restriction } });
      expect(res.status, res.text).to.equal(200);
    };
    const order = async (seller: Seller, portalAccountId: number) => {
      const res = await call('order/', {
        token: seller.token,
        body: { order: { customer: { email: `buyer-${seller.id}@example.com` } }, portal_account_id: portalAccountId },
      });
      expect(res.status, res.text).to.equal(201);
      return res.body.order_id as string;
    };
    /** The order created event, dispatched: its job's result. */
    const dispatched = (seller: Seller, orderId: string) =>
      waitFor(async () => {
        const row = (await db()('outbox')
          .where({ account_id: seller.id, job_name: 'event.emit', state: 'completed' })
          .whereRaw("payload->>'recordId' = ? AND payload->>'type' = 'created' AND payload->>'section' = 'order'", [orderId])
          .first('result')) as { result: { runs: { handler_id: number }[]; skipped: { handler_id: number; reason: string }[] } } | undefined;
        return row?.result;
      }, `the created event of ${orderId} to be dispatched`);
    const cancelled = async (seller: Seller, orderId: string) =>
      ((await call(`order/${orderId}/?select[status][is_cancelled]=`, { token: seller.token })).body.order as { status: { is_cancelled: boolean } }).status
        .is_cancelled;

    it('when the rule weighs a restricted access, then it removes what needs a right gone, a pair it does not know and what is bound elsewhere, and binds what was made for all', () => {
      const h = (id: number, section: string, action: string, grant: number | null) => ({ id, section, action, portal_account_grant: grant });
      const handlers = [
        h(1, 'order', 'order_flag', null),
        h(2, 'order', 'notification', null),
        h(3, 'order', 'task', 7),
        h(4, 'order', 'unknown', null),
        h(5, 'stock', 'mail', 8),
      ];
      expect(narrowedHandlers(handlers, { scope: ['order_r', 'task_w', 'stock_r'], portalAccountId: 7 })).to.deep.equal({ remove: [1, 4, 5], bind: [2] });
      expect(narrowedHandlers(handlers, { scope: ['order_r', 'order_w', 'task_w', 'stock_r'], portalAccountId: null })).to.deep.equal({
        remove: [4],
        bind: [],
      });
    });

    it('when the seller takes order_w from a client, then its order_flag handler is gone and cancels no order; its webhook, whose rights it keeps, stays', async () => {
      const seller = await newSeller();
      const client = await clientWithHandlers(seller, `evh-narrow-${seller.id}`);
      await restrict(seller, client.accessId, { scope: ['order_r', 'admin_r', 'admin_w'] });

      const listed = ((await call('admin/event/handler/', { token: seller.token })).body.event_handler as { id: number }[]).map((h) => h.id);
      expect(listed).to.deep.equal([client.webhookId]);
      const orderId = await order(seller, seller.portalAccountId);
      const result = await dispatched(seller, orderId);
      expect(result.runs.map((r) => r.handler_id)).to.deep.equal([client.webhookId]);
      expect(await cancelled(seller, orderId)).to.equal(false);
    });

    it('when a client creates a handler while the seller restricts its access, then the handler is written with the rights that remain: a missing one is 403 and nothing is stored', async () => {
      const seller = await newSeller();
      const client = await clientWithHandlers(seller, `evh-race-${seller.id}`);
      // The test holds the access's row as a restriction does while it narrows: the creation waits for it.
      const restriction = await db().transaction();
      try {
        await restriction('client_access').where({ id: client.accessId }).forUpdate().first();
        const creating = call('admin/event/handler/', { token: client.token, body: orderFlag });
        await untilOneWaitsForALock('%client_access%');
        await restriction('client_access')
          .where({ id: client.accessId })
          .update({ scope: ['order_r', 'admin_r', 'admin_w'] });
        await restriction.commit();
        const res = await creating;
        expect([res.status, res.body.error?.[0]?.error], res.text).to.deep.equal([403, 'insufficient_scope']);
      } finally {
        if (!restriction.isCompleted()) await restriction.rollback();
      }
      const listed = ((await call('admin/event/handler/', { token: seller.token })).body.event_handler as { id: number }[]).map((h) => h.id);
      expect(listed).to.deep.equal([client.flagId, client.webhookId]);
    });

    it('when the seller binds a cross-account client to another portal account, then its handlers act only on that one: the orders of the first are not cancelled, those of the other are', async () => {
      const seller = await newSeller();
      const shop2 = Number((await createPortalAccount(seller.id, { name: 'Shop 2', platform: 'shop_g' })).id);
      const client = await clientWithHandlers(seller, `evh-bind-${seller.id}`);
      await restrict(seller, client.accessId, { portal_account_id: shop2 });

      // The client, bound to shop 2 now, still sees and manages its handlers.
      const seen = await call('admin/event/handler/', { token: client.token });
      expect(seen.status, seen.text).to.equal(200);
      expect((seen.body.event_handler as { id: number }[]).map((h) => h.id)).to.deep.equal([client.flagId, client.webhookId]);

      const first = await order(seller, seller.portalAccountId);
      const result = await dispatched(seller, first);
      expect(result.runs).to.deep.equal([]);
      expect(result.skipped.map((s) => s.handler_id)).to.deep.equal([client.flagId, client.webhookId]);
      expect(await cancelled(seller, first)).to.equal(false);

      const other = await order(seller, shop2);
      await waitFor(async () => (await cancelled(seller, other)) || undefined, `order ${other} of shop 2 to be cancelled by the client's handler`);
      expect(await cancelled(seller, first)).to.equal(false);
    });
  });
});
