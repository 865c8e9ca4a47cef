/**
 * A stock item's app[] (document 2: "Per active app, keyed by client_id") holds each authorized
 * client's own data on the shared item. A third-party client reads and writes its own entry only:
 * a client bound to portal account 2 read the entry of a client bound to portal account 1, and
 * its app[] replaced the list, deleting the other client's entry. The seller's own token sees and
 * writes every entry, as before.
 */
import { expect } from 'chai';
import { createPortalAccount } from '../../lib/admin/portal-account-admin.service';
import { call, newSeller, Seller } from '../support/api';
import { boundClient } from '../support/bound-client';
import { answered } from '../stock/stock-groups';

type App = { client_id: string } & Record<string, unknown>;

describe("stock app[]: each client's own entry", () => {
  let seller: Seller;
  let one: { clientId: string; token: string };
  let two: { clientId: string; token: string };
  let stockId: number;

  before(async () => {
    seller = await newSeller();
    const account2 = (await createPortalAccount(seller.id, { name: 'Shop 2', platform: 'shop_g' })).id;
    one = await boundClient(seller, 'app-one', seller.portalAccountId, 'stock_r stock_w');
    two = await boundClient(seller, 'app-two', account2, 'stock_r stock_w');
    const item = await call('stock/', { token: seller.token, body: { stock: { name: 'Lamp', quantity: 3 } } });
    expect(item.status, item.text).to.equal(201);
    stockId = Number(item.body.stock_id);
  });

  /** The item's entries of a list keyed by client_id (app or customs) as the token reads them. */
  const entriesOf = async (token: string, key: 'app' | 'customs' = 'app'): Promise<App[]> => {
    const res = await call(`stock/${stockId}/`, { token });
    expect(res.status, res.text).to.equal(200);
    return ((res.body.stock as Record<string, App[] | undefined>)[key] ?? []).slice().sort((a, b) => a.client_id.localeCompare(b.client_id));
  };
  const appOf = (token: string) => entriesOf(token);
  const writeApp = (token: string, app: App[], key: 'app' | 'customs' = 'app') => call(`stock/${stockId}/`, { token, body: { stock: { [key]: app } } });

  it("when two clients write their entries, then each reads its own alone, nothing of the other's is lost, and the seller reads both", async () => {
    expect((await writeApp(one.token, [{ client_id: one.clientId, ref: 'one-17' }])).status).to.equal(200);
    expect((await writeApp(two.token, [{ client_id: two.clientId, ref: 'two-42' }])).status).to.equal(200);
    expect(await appOf(one.token)).to.deep.equal([{ client_id: one.clientId, ref: 'one-17' }]);
    expect(await appOf(two.token)).to.deep.equal([{ client_id: two.clientId, ref: 'two-42' }]);
    const search = await call(`stock/?filter[id]=${stockId}`, { token: two.token });
    expect(search.status, search.text).to.equal(200);
    expect((search.body.stock as { app?: App[] }[])[0]!.app).to.deep.equal([{ client_id: two.clientId, ref: 'two-42' }]);
    expect((await appOf(seller.token)).map((a) => a.ref)).to.have.members(['one-17', 'two-42']);
  });

  it("when a client writes an entry under another client's client_id, then 400 naming stock.app[0].client_id and nothing is changed", async () => {
    const before = await appOf(seller.token);
    const res = await writeApp(two.token, [{ client_id: one.clientId, ref: 'planted' }]);
    expect(res.status, res.text).to.equal(400);
    expect(res.body.error![0]!.field).to.equal('stock.app[0].client_id');
    expect(await appOf(seller.token)).to.deep.equal(before);
  });

  it('when a client sends an empty app[], then only its own entry goes', async () => {
    expect((await writeApp(one.token, [])).status).to.equal(200);
    expect((await appOf(seller.token)).map((a) => a.client_id)).to.deep.equal([two.clientId]);
  });

  // customs is keyed the same way (document 2: "Per active customs app keyed by client_id").
  const customsOf = (token: string) => entriesOf(token, 'customs');
  const writeCustoms = (token: string, customs: App[]) => writeApp(token, customs, 'customs');

  it("when two customs apps write their customs entries, then each reads and replaces its own alone, another's client_id is refused, and the seller reads both", async () => {
    expect((await writeCustoms(one.token, [{ client_id: one.clientId, hs_code: '691110' }])).status).to.equal(200);
    expect((await writeCustoms(two.token, [{ client_id: two.clientId, hs_code: '940520' }])).status).to.equal(200);
    expect(await customsOf(two.token)).to.deep.equal(answered('customs', [{ client_id: two.clientId, hs_code: '940520' }]));
    const planted = await writeCustoms(two.token, [{ client_id: one.clientId, hs_code: '000000' }]);
    expect(planted.status, planted.text).to.equal(400);
    expect(planted.body.error![0]!.field).to.equal('stock.customs[0].client_id');
    expect((await writeCustoms(two.token, [])).status).to.equal(200);
    expect(await customsOf(seller.token)).to.deep.equal(answered('customs', [{ client_id: one.clientId, hs_code: '691110' }]));
  });
});
