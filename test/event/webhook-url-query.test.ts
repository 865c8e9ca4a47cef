/**
 * A webhook url's query often carries the receiver's credential (`?token=...`, as many receivers
 * take it): like the url's password, it is not for every client with admin_r. The seller's own
 * tokens and the client that made the handler read it as written; another client reads its values
 * masked (***), and posting such a url back is a 400, not a handler whose deliveries would fail.
 */
import { expect } from 'chai';
import { call, newSeller } from '../support/api';
import { clientToken } from '../support/bound-client';

const url = 'https://hooks.example.com/kontor?token=s3cret-t0ken&account=42&flag';
const masked = 'https://hooks.example.com/kontor?token=***&account=***&flag';
const webhook = (target: string, to = url) => ({
  event_handler: { type: { id: 'created' }, section: 'order', action: { id: 'notification', required: { url: to, format: 'post', target_name: target } } },
});
const urlOf = (body: unknown) => (body as { action: { required: { url: string } } }).action.required.url;

describe("a webhook url's query is read by the seller and the handler's maker only", () => {
  it('when the seller, the client that made it and another client read a handler, then only the other client reads the query values masked', async () => {
    const seller = await newSeller();
    const maker = await clientToken(seller, `query-maker-${seller.id}`, 'all', 'admin_r admin_w order_r');
    const other = await clientToken(seller, `query-other-${seller.id}`, 'all', 'admin_r admin_w order_r');
    const bySeller = await call('admin/event/handler/', { token: seller.token, body: webhook('seller') });
    const byMaker = await call('admin/event/handler/', { token: maker, body: webhook('maker') });
    expect([bySeller.status, byMaker.status], byMaker.text).to.deep.equal([201, 201]);

    const read = async (token: string) => {
      const list = (await call('admin/event/handler/', { token })).body.event_handler as unknown[];
      const one = async (id: unknown) => urlOf((await call(`admin/event/handler/${String(id)}/`, { token })).body.event_handler);
      return { list: list.map(urlOf), seller: await one(bySeller.body.event_handler_id), maker: await one(byMaker.body.event_handler_id) };
    };
    expect(await read(seller.token)).to.deep.equal({ list: [url, url], seller: url, maker: url });
    expect(await read(maker)).to.deep.equal({ list: [masked, url], seller: masked, maker: url });
    expect(await read(other)).to.deep.equal({ list: [masked, masked], seller: masked, maker: masked });
  });

  it('when a client posts back a url read with its query masked, then 400 names the url', async () => {
    const seller = await newSeller();
    const other = await clientToken(seller, `query-back-${seller.id}`, 'all', 'admin_r admin_w order_r');
    const again = await call('admin/event/handler/', { token: other, body: webhook('again', masked) });
    expect(again.status, again.text).to.equal(400);
    expect(again.body.error![0]!.field).to.equal('event_handler.action.required.url');
    expect(again.body.error![0]!.description).to.contain('***');
    // A query without *** is taken as before.
    expect((await call('admin/event/handler/', { token: other, body: webhook('plain') })).status).to.equal(201);
  });
});
