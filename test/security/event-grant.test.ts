/**
 * Issue 31, must deliver 2 for event handlers (findings 2 and 7): a handler made by a client bound
 * to one portal account acts only on that portal account's records, such a client neither sees
 * nor changes other handlers, and a third-party client does not read signing secrets back.
 */
import { expect } from 'chai';
import { createPortalAccount } from '../../lib/admin/portal-account-admin.service';
import { call, newSeller, Seller } from '../support/api';
import { clientToken } from '../support/bound-client';
import { useEventsWorker } from '../event/events-worker';
import { waitFor } from '../event/servers';

const notification = (url: string) => ({
  event_handler: { type: { id: 'created' }, section: 'order', action: { id: 'notification', required: { url, format: 'post', target_name: 'erp' } } },
});
const packedFlag = {
  event_handler: { type: { id: 'created' }, section: 'order', action: { id: 'order_flag', required: { flag: 'is_packed', value: 'true' } } },
};

describe('event handlers under a portal-account grant (issue 31)', function () {
  this.timeout(60000);
  let seller: Seller;
  let account2: number;
  let bound1: string;
  let bound2: string;

  const setting = useEventsWorker('evgrant', { settings: () => ({ webhookTimeoutMs: 2000 }) });
  before(async () => {
    seller = await newSeller();
    account2 = (await createPortalAccount(seller.id, { name: 'Shop 2', platform: 'shop_g' })).id;
    bound1 = await clientToken(seller, 'evshop-one', seller.portalAccountId, 'admin_r admin_w order_r order_w');
    bound2 = await clientToken(seller, 'evshop-two', account2, 'admin_r admin_w order_r order_w');
  });

  const order = async (portalAccountId: number) => {
    const res = await call('order/', {
      token: seller.token,
      body: { order: { customer: { email: `buyer-${portalAccountId}@example.com` } }, portal_account_id: portalAccountId },
    });
    expect(res.status, res.text).to.equal(201);
    return res.body.order_id as string;
  };
  const packed = async (orderId: string) => {
    const res = await call(`order/${orderId}/`, { token: seller.token });
    return (res.body.order as { status: { is_packed: boolean } }).status.is_packed;
  };

  it("when a client bound to portal account 1 makes handlers, then they notify and flag only portal account 1's orders", async () => {
    const path = `/bound/${seller.id}`;
    const all = `/all/${seller.id}`;
    expect((await call('admin/event/handler/', { token: bound1, body: notification(`${setting.receiver.base}${path}`) })).status).to.equal(201);
    expect((await call('admin/event/handler/', { token: bound1, body: packedFlag })).status).to.equal(201);
    // The seller's own handler sees every order: when it has both, both dispatches are done.
    expect((await call('admin/event/handler/', { token: seller.token, body: notification(`${setting.receiver.base}${all}`) })).status).to.equal(201);
    const foreign = await order(account2);
    const own = await order(seller.portalAccountId);
    // Three webhooks of one account: the third waits for a slot (WEBHOOK_CONCURRENCY_PER_ACCOUNT) and the next sweep.
    await waitFor(
      async () =>
        setting.receiver.received.filter((r) => r.path === all).length === 2 && setting.receiver.received.some((r) => r.path === path) && (await packed(own)),
      'both dispatches, the bound handler notification and the own flag',
    );
    // Anything of portal account 2 the bound handler wrongly sent would be on its way by now.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const notified = setting.receiver.received.filter((r) => r.path === path).map((r) => (JSON.parse(r.body) as { order_id: string }).order_id);
    expect(notified).to.deep.equal([own]);
    expect(await packed(foreign)).to.equal(false);
  });

  it("when a client bound to portal account 2 reads, lists, deletes or resumes portal account 1's client's handler, then 404 and it stays", async () => {
    const made = await call('admin/event/handler/', { token: bound1, body: notification('https://hooks.example.com/one') });
    expect(made.status, made.text).to.equal(201);
    const id = made.body.event_handler_id as number;
    const absent = await call('admin/event/handler/999999/', { token: bound2 });
    for (const [method, path] of [
      ['GET', `admin/event/handler/${id}/`],
      ['GET', `admin/event/handler/${id}/delivery/`],
      ['DELETE', `admin/event/handler/${id}/`],
      ['POST', `admin/event/handler/${id}/resume/`],
    ] as const) {
      const res = await call(path, { token: bound2, method });
      expect(res.status, `${method} ${path}: ${res.text}`).to.equal(404);
      expect(res.body.error![0]!.error).to.equal(absent.body.error![0]!.error);
    }
    const listed = (await call('admin/event/handler/', { token: bound2 })).body.event_handler as { id: number }[];
    expect(listed.map((h) => h.id)).to.not.include(id);
    expect((await call(`admin/event/handler/${id}/`, { token: seller.token })).status).to.equal(200);
    expect((await call(`admin/event/handler/${id}/`, { token: bound1 })).status).to.equal(200);
  });

  it('when a third-party client with admin_r reads a notification handler, then no signing_secret; the seller still reads it', async () => {
    const made = await call('admin/event/handler/', { token: bound1, body: notification('https://hooks.example.com/secret') });
    expect(made.status).to.equal(201);
    // The creator gets it once, at creation.
    expect(made.body.signing_secret).to.match(/^whsec_/);
    const id = made.body.event_handler_id as number;
    const byClient = (await call(`admin/event/handler/${id}/`, { token: bound1 })).body.event_handler as Record<string, unknown>;
    expect(byClient).to.not.have.property('signing_secret');
    const everything = await clientToken(seller, 'evshop-all', 'all', 'admin_r admin_w order_r order_w');
    const byAll = (await call(`admin/event/handler/${id}/`, { token: everything })).body.event_handler as Record<string, unknown>;
    expect(byAll).to.not.have.property('signing_secret');
    const bySeller = (await call(`admin/event/handler/${id}/`, { token: seller.token })).body.event_handler as Record<string, unknown>;
    expect(bySeller.signing_secret).to.equal(made.body.signing_secret);
  });
});
