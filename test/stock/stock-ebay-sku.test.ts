/**
 * A stock item's eBay SKU that eBay refuses for a new inventory item (25707: letters, digits and
 * "-" only; lib/portals ebaySkuRefusal) is saved, since the SKU is the seller's across channels,
 * and the save says it in the envelope's warning[] (document 1: Warning_type, ack "warning", the
 * request succeeded), naming the field (lib/stock/README.md "eBay SKUs").
 */
import { expect } from 'chai';
import { db } from '../../lib/db/knex';
import { call, newSeller, Seller } from '../support/api';
import { readItem } from './helpers';

type Warned = { warning?: { warning: string; field?: string; code: number; description: string }[]; ack?: string };

describe('a stock item whose eBay SKU eBay refuses: saved, with a warning', () => {
  let seller: Seller;
  beforeEach(async () => {
    seller = await newSeller();
  });
  const save = (path: string, stock: Record<string, unknown>) => call(path, { token: seller.token, body: { stock } });
  const warnings = (body: Warned) => (body.warning ?? []).map((w) => [w.warning, w.field, w.code]);

  it('when an item with an auction_a lister is saved with a SKU holding "_", then it is saved as sent and the answer warns naming stock.sku', async () => {
    const res = await save('stock/', { name: 'Lamp', sku: 'LAMP_5', quantity: 3, auction_a: [{ name: 'Desk lamp', price: '19.90' }] });
    expect(res.status, res.text).to.equal(201);
    const body = res.body as Warned;
    expect(body.ack).to.equal('warning');
    expect(warnings(body)).to.deep.equal([['ebay_sku_refused', 'stock.sku', 201]]);
    expect(body.warning![0]!.description).to.contain('the SKU "LAMP_5" holds "_", which eBay refuses in a SKU (25707');
    const item = await readItem(seller, res.body.stock_id as number);
    expect(item.sku).to.equal('LAMP_5');
    expect((item as unknown as { auction_a: { name: string }[] }).auction_a[0]!.name).to.equal('Desk lamp');
  });

  it('when the auction_a entry has a sku of its own, then that one is checked and named (stock.auction_a[i].sku); a SKU eBay takes warns of nothing', async () => {
    const res = await save('stock/', { name: 'Lamp', sku: 'LAMP_6', auction_a: [{ sku: 'LAMP 6', price: '19.90' }] });
    expect(res.status, res.text).to.equal(201);
    expect(warnings(res.body as Warned)).to.deep.equal([['ebay_sku_refused', 'stock.auction_a[0].sku', 201]]);
    // The entry's sku is eBay's: the item's own "LAMP_6" is not sent there, so it is not named.
    const fixed = await save(`stock/${String(res.body.stock_id)}/`, { auction_a: [{ sku: 'LAMP-6' }] });
    expect(fixed.status, fixed.text).to.equal(200);
    expect((fixed.body as Warned).ack).to.equal('success');
    expect(fixed.body).to.not.have.property('warning');
  });

  it('when the item has no auction_a lister, or the save sends neither sku nor auction_a, then nothing is said: the SKU is for the other channels', async () => {
    const plain = await save('stock/', { name: 'Lamp', sku: 'LAMP_7', market_d: { sku: 'LAMP_7' } });
    expect(plain.status, plain.text).to.equal(201);
    expect((plain.body as Warned).ack).to.equal('success');
    const listed = await save('stock/', { name: 'Lamp', sku: 'LAMP_8', auction_a: [{ price: '19.90' }] });
    expect(warnings(listed.body as Warned)).to.have.length(1);
    const renamed = await save(`stock/${String(listed.body.stock_id)}/`, { name: 'Brass lamp' });
    expect(renamed.status, renamed.text).to.equal(200);
    expect(renamed.body).to.not.have.property('warning');
  });

  it('when such an item is saved in XML, then the XML answer carries the warning with its field, ack warning, and the item is saved as sent', async () => {
    const res = await call('stock/', {
      token: seller.token,
      headers: { 'Content-Type': 'application/xml', Accept: 'application/xml' },
      body: '<request><stock><name>Lamp</name><sku>LAMP-10</sku><auction_a><sku>LAMP_10</sku><price>19.90</price></auction_a></stock></request>',
    });
    expect(res.status, res.text).to.equal(201);
    expect(res.text).to.contain('<ack>warning</ack>');
    expect(res.text).to.match(
      /<warning><warning>ebay_sku_refused<\/warning><description>[^<]*LAMP_10[^<]*<\/description><code>201<\/code><field>stock\.auction_a\[0\]\.sku<\/field><\/warning>/,
    );
    const id = Number(/<stock_id>(\d+)<\/stock_id>/.exec(res.text)?.[1]);
    const item = (await readItem(seller, id)) as unknown as { sku: string; auction_a: { sku: string }[] };
    expect([item.sku, item.auction_a.map((e) => e.sku)]).to.deep.equal(['LAMP-10', ['LAMP_10']]);
  });

  it('when stock/list/ saves such an item, then its part carries the warning under its path', async () => {
    const res = await call('stock/list/', {
      token: seller.token,
      body: {
        stock: [
          { name: 'Lamp', sku: 'LAMP-9', auction_a: [{ price: '1.00' }] },
          { name: 'Lamp', sku: 'LAMP.9', auction_a: [{ price: '1.00' }] },
        ],
      },
    });
    expect(res.status, res.text).to.be.oneOf([200, 201, 207]);
    const parts = res.body.response as ({ path: string; code: number } & Warned)[];
    expect(parts.map((p) => [p.path, p.code, warnings(p)])).to.deep.equal([
      ['stock[0]', 201, []],
      ['stock[1]', 201, [['ebay_sku_refused', 'stock[1].sku', 201]]],
    ]);
  });

  /** Kontor's record of the item's auction_a listing (what portal_upload's list writes), under its entry's lister. */
  async function recordListing(stockId: number, listedSku: string | null, status: 'listed' | 'ended' = 'listed'): Promise<string> {
    const item = (await readItem(seller, stockId)) as unknown as { auction_a: { lister_id: number | string }[] };
    const listerId = String(item.auction_a[0]!.lister_id);
    await db()('portal_listing').insert({
      account_id: seller.id,
      stock_id: stockId,
      portal: 'auction_a',
      portal_account_id: seller.portalAccountId,
      lister_id: listerId,
      portal_item_id: `1100000${stockId}`,
      status,
      listed_sku: listedSku,
    });
    return listerId;
  }

  it('when the item is live at eBay under the SKU (Kontor listed it there, so eBay holds it), then a save sending that SKU or the entry warns of nothing; another SKU eBay refuses still warns', async () => {
    const created = await save('stock/', { name: 'Lamp', sku: 'LAMP_11', quantity: 3, auction_a: [{ name: 'Desk lamp', price: '19.90' }] });
    expect(warnings(created.body as Warned)).to.deep.equal([['ebay_sku_refused', 'stock.sku', 201]]);
    const id = created.body.stock_id as number;
    const listerId = await recordListing(id, 'LAMP_11');

    const again = await save(`stock/${id}/`, { sku: 'LAMP_11', quantity: 4 });
    expect(again.status, again.text).to.equal(200);
    expect((again.body as Warned).ack).to.equal('success');
    expect(again.body).to.not.have.property('warning');
    const entry = await save(`stock/${id}/`, { auction_a: [{ lister_id: listerId, price: '21.00' }] });
    expect(entry.status, entry.text).to.equal(200);
    expect(entry.body).to.not.have.property('warning');

    // The listing stays under LAMP_11 at eBay: a new SKU of the item is one eBay holds nothing of.
    const renamed = await save(`stock/${id}/`, { sku: 'LAMP_12' });
    expect(renamed.status, renamed.text).to.equal(200);
    expect(warnings(renamed.body as Warned)).to.deep.equal([['ebay_sku_refused', 'stock.sku', 200]]);
    expect((renamed.body as Warned).warning![0]!.description).to.contain('LAMP_12');
    expect((await readItem(seller, id)).sku).to.equal('LAMP_12');
  });

  it('when the item’s live listing was recorded before Kontor kept its SKU, then its SKU before the save counts as the listing’s; an ended listing counts for nothing', async () => {
    const old = await save('stock/', { name: 'Lamp', sku: 'LAMP_13', auction_a: [{ price: '19.90' }] });
    const oldId = old.body.stock_id as number;
    await recordListing(oldId, null);
    const saved = await save(`stock/${oldId}/`, { sku: 'LAMP_13', auction_a: [{ price: '20.00' }] });
    expect(saved.status, saved.text).to.equal(200);
    expect(saved.body).to.not.have.property('warning');

    const ended = await save('stock/', { name: 'Lamp', sku: 'LAMP_14', auction_a: [{ price: '19.90' }] });
    const endedId = ended.body.stock_id as number;
    await recordListing(endedId, 'LAMP_14', 'ended');
    const after = await save(`stock/${endedId}/`, { sku: 'LAMP_14' });
    expect(warnings(after.body as Warned)).to.deep.equal([['ebay_sku_refused', 'stock.sku', 200]]);
  });
});
