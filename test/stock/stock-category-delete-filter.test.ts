import { expect } from 'chai';
import { call, newSeller, query, Seller } from '../support/api';

/**
 * DELETE stock/category/ takes a Category_filter_type (document 1); it deletes what the filter names
 * and nothing by accident: the filter split between query string and body, a filter object that
 * names nothing of its own beside others, or a pagination that would not bound it, is a 400 and
 * deletes nothing.
 */
describe('stock: DELETE stock/category/ by filter, never everything by accident', () => {
  let seller: Seller;
  beforeEach(async () => {
    seller = await newSeller();
    // One portal per request (document 2, Category_type.platform).
    for (const category of [
      [
        { platform: 'shop_g', id: '1', name: 'Mugs' },
        { platform: 'shop_g', id: '2', name: 'Cups', parent_id: '1' },
        { platform: 'shop_g', id: '3', name: 'Plates' },
      ],
      [{ platform: 'market_i', id: '1', name: 'Mugs' }],
    ]) {
      const res = await call('stock/category/', { token: seller.token, body: { category } });
      expect(res.status, res.text).to.equal(201);
    }
  });

  const left = async (platform: string) => {
    const res = await call(`stock/category/?${query({ filter: { platform } })}`, { token: seller.token });
    expect(res.status, res.text).to.equal(200);
    return (res.body.category as { id: string }[]).map((c) => c.id);
  };
  const remove = (path: string, body?: unknown) =>
    call(`stock/category/${path}`, { token: seller.token, method: 'DELETE', ...(body === undefined ? {} : { body }) });

  it('when the platform is in the query string and the rest of the filter in the body, then 400 names the body and nothing is deleted', async () => {
    const res = await remove(`?${query({ filter: { platform: 'shop_g' } })}`, { filter: { id: '2' } });
    expect(res.status, res.text).to.equal(400);
    expect(res.body.error![0]).to.include({ error: 'invalid_field', field: 'body' });
    expect(await left('shop_g')).to.deep.equal(['1', '2', '3']);
    // portal_account_id in the query and the filter in the body: the same 400, not "platform is required"
    const split = await remove(`?portal_account_id=${seller.portalAccountId}`, { filter: { platform: 'shop_g', id: '2' } });
    expect(split.status, split.text).to.equal(400);
    expect(split.body.error![0]).to.include({ field: 'body' });
    expect(await left('shop_g')).to.deep.equal(['1', '2', '3']);
  });

  it('when a later filter object is empty, then 400 names it and nothing is deleted', async () => {
    const res = await remove('', { filter: [{ platform: 'shop_g', id: '2' }, {}] });
    expect(res.status, res.text).to.equal(400);
    expect(res.body.error![0]).to.include({ error: 'invalid_field', field: 'filter[1]' });
    expect(await left('shop_g')).to.deep.equal(['1', '2', '3']);
  });

  it('when the first filter object holds only the platform and later ones the ids, then 400 names filter[0]; with the first id beside the platform, just those go', async () => {
    const res = await remove(`?filter[0][platform]=shop_g&filter[1][id]=2&filter[2][id]=3`);
    expect(res.status, res.text).to.equal(400);
    expect(res.body.error![0]).to.include({ field: 'filter[0]' });
    expect(await left('shop_g')).to.deep.equal(['1', '2', '3']);
    const ok = await remove(`?filter[0][platform]=shop_g&filter[0][id]=2&filter[1][id]=3`);
    expect(ok.status, ok.text).to.equal(200);
    expect(await left('shop_g')).to.deep.equal(['1']);
    expect(await left('market_i')).to.deep.equal(['1']);
  });

  it('when pagination or select is sent with a DELETE, then 400 names it and nothing is deleted', async () => {
    const limited = await remove(`?${query({ filter: { platform: 'shop_g' }, pagination: { limit: 1 } })}`);
    expect(limited.status, limited.text).to.equal(400);
    expect(limited.body.error![0]).to.include({ field: 'pagination' });
    const selected = await remove(`?${query({ filter: { platform: 'shop_g', id: '3' }, select: { id: '' } })}`);
    expect(selected.status, selected.text).to.equal(400);
    expect(selected.body.error![0]).to.include({ field: 'select' });
    expect(await left('shop_g')).to.deep.equal(['1', '2', '3']);
  });

  it('when the filter comes in the body alone, or the platform alone in one filter object, then it deletes what it names', async () => {
    const body = await remove('', { filter: [{ platform: 'shop_g', id: '3' }, { parent_id: '1' }] });
    expect(body.status, body.text).to.equal(200);
    expect(await left('shop_g')).to.deep.equal(['1']);
    const all = await remove(`?${query({ filter: { platform: 'shop_g' } })}`);
    expect(all.status, all.text).to.equal(200);
    expect(await left('shop_g')).to.deep.equal([]);
    expect(await left('market_i')).to.deep.equal(['1']);
  });
});
