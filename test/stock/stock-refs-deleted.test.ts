/**
 * A stock item naming a shop_g category or a cia.event target the seller deletes afterwards
 * (DELETE stock/category/, DELETE admin/event/handler/{id}/), tried from outside: the delete
 * removes the name from the items (as a foreign key's ON DELETE), so GET stock/{id}/ shows no id a
 * client cannot resolve and the item's own GET body posts back as it is (lib/http README), by
 * POST stock/{id}/ and stock/list/; a new reference to the deleted record is still a 400 naming
 * the field. An item still naming a deleted record (stored before the checks) posts back too.
 */
import { expect } from 'chai';
import type { Knex } from 'knex';
import { ApiResponse, call, errorFields, newSeller, query, Seller } from '../support/api';
import { db } from '../../lib/db/knex';
import type { SaveContext } from '../../lib/stock/stock-save';
import { saveStock } from '../../lib/stock/stock.service';
import type { StockInput } from '../../lib/stock/stock.type';
import { createItem, readItem, refusedOnCreate, stockCiaHandler } from './helpers';
import { answered, answeredFields } from './stock-groups';

type Item = Record<string, unknown> & { cia?: { event?: { target?: string[] } }; shop_g?: { category?: unknown[] } };

describe('stock references whose record the seller deleted (post back what GET answers)', () => {
  let seller: Seller;
  beforeEach(async () => {
    seller = await newSeller();
  });

  /** GET stock/{id}/, as a client reads it to post it back. */
  const read = async (id: number) => (await readItem(seller, id)) as Item;

  /** POST stock/{id}/ with the body GET answered: 200 (read-only fields dropped with warnings), and the item reads as before. */
  async function postsBackUnchanged(id: number): Promise<void> {
    const before = await read(id);
    const res = await call(`stock/${id}/`, { token: seller.token, body: { stock: before } });
    expect(res.status, res.text).to.equal(200);
    expect(
      (res.body.warning ?? []).every((w) => w.warning === 'read_only_field'),
      res.text,
    ).to.equal(true);
    expect(await read(id)).to.deep.equal(before);
  }

  /** GET stock/ for the ids given, in id order: the page a client reads items from to post them back in bulk. */
  async function readPage(ids: number[]): Promise<Item[]> {
    const res = await call(`stock/?${query({ filter: { id: ids } })}`, { token: seller.token });
    expect(res.status, res.text).to.equal(200);
    return res.body.stock as Item[];
  }

  /** POST stock/list/ with the items GET stock/ answered: 207, every part 200, and the items read as before (page and item). */
  async function listPostsBackUnchanged(ids: number[]): Promise<void> {
    const sorted = [...ids].sort((a, b) => a - b);
    const page = await readPage(sorted);
    expect(page.map((s) => Number(s.id))).to.deep.equal(sorted);
    for (const [k, id] of sorted.entries()) expect(page[k]).to.deep.equal(await read(id));
    const res = await call('stock/list/', { token: seller.token, body: { stock: page } });
    expect(res.status, res.text).to.equal(207);
    expect(
      (res.body.response as { code: number }[]).map((p) => p.code),
      res.text,
    ).to.deep.equal(sorted.map(() => 200));
    expect(await readPage(sorted)).to.deep.equal(page);
  }

  /** Ids of the seller's items changed after `since` (GET stock/ filter modified_date), as a syncing client finds them. */
  async function changedSince(since: string): Promise<number[]> {
    const res = await call(`stock/?${query({ filter: { modified_date: { operator: '>', value: since } } })}`, { token: seller.token });
    expect(res.status, res.text).to.equal(200);
    return (res.body.stock as { id: string }[]).map((s) => Number(s.id)).sort((a, b) => a - b);
  }

  /** A moment after everything written so far (modified_at is now() of its transaction). */
  async function mark(): Promise<string> {
    await new Promise((resolve) => setTimeout(resolve, 20));
    const at = new Date().toISOString();
    await new Promise((resolve) => setTimeout(resolve, 20));
    return at;
  }

  describe('cia.event target[] after DELETE admin/event/handler/{id}/', () => {
    const deleteHandler = async (id: number) => {
      const res = await call(`admin/event/handler/${id}/`, { token: seller.token, method: 'DELETE' });
      expect(res.status, res.text).to.equal(200);
    };

    it('when a handler the item names is deleted, then GET no longer names it, the GET body posts back with 200, and naming it anew is a 400', async () => {
      const erp = await stockCiaHandler(seller, 'erp');
      const shop = await stockCiaHandler(seller, 'shop');
      // A second handler carrying the target_name 'shop': when it goes, 'shop' still names the first.
      const shop2 = await stockCiaHandler(seller, 'shop');
      const task = await stockCiaHandler(seller);
      const event = (target: string[]) => ({ cia: { event: { is_active: true, target } } });
      const cup = await createItem(seller, { name: 'Cup', sku: 'CUP', quantity: 4, ...event([String(erp), 'shop', 'erp', String(shop2), String(task)]) });
      const mug = await createItem(seller, { name: 'Mug', sku: 'MUG', ...event(['shop', String(shop)]) });
      const plate = await createItem(seller, { name: 'Plate', sku: 'PLATE', ...event([String(task)]) });
      const since = await mark();

      await deleteHandler(erp);
      await deleteHandler(shop2);
      await deleteHandler(task);

      // The names left are those a handler still carries, in their order; an emptied list stays a list.
      expect((await read(cup)).cia).to.deep.equal(answered('cia', { event: { is_active: true, target: ['shop'] } }));
      expect((await read(mug)).cia).to.deep.equal(answered('cia', { event: { is_active: true, target: ['shop', String(shop)] } }));
      expect((await read(plate)).cia).to.deep.equal(answered('cia', { event: { is_active: true, target: [] } }));
      expect(await read(cup)).to.include({ name: 'Cup', sku: 'CUP', quantity: 4 });
      // A client syncing by modified_date learns which items changed, and no other.
      expect(await changedSince(since)).to.deep.equal([cup, plate].sort((a, b) => a - b));

      await postsBackUnchanged(cup);
      await postsBackUnchanged(plate);
      await listPostsBackUnchanged([cup, mug, plate]);

      // The deleted handler is named anew: by a new item, by an update, in stock/list/.
      await refusedOnCreate(seller, 'NEW-ERP', event([String(erp)]), 'stock.cia.event.target[0]');
      await refusedOnCreate(seller, 'NEW-ERP', event(['shop', 'erp']), 'stock.cia.event.target[1]');
      const update = await call(`stock/${cup}/`, { token: seller.token, body: { stock: event(['shop', String(task)]) } });
      expect(update.status, update.text).to.equal(400);
      expect(errorFields(update)).to.deep.equal(['stock.cia.event.target[1]']);
      const list = await call('stock/list/', {
        token: seller.token,
        body: {
          stock: [
            { id: String(mug), ...event(['erp']) },
            { name: 'Bowl', sku: 'BOWL', ...event([String(shop2)]) },
          ],
        },
      });
      expect(list.status, list.text).to.equal(207);
      const parts = list.body.response as { code: number; error?: { field?: string }[] }[];
      expect(parts.map((p) => p.code)).to.deep.equal([400, 400]);
      expect(parts.map((p) => p.error!.map((e) => e.field))).to.deep.equal([['stock[0].cia.event.target[0]'], ['stock[1].cia.event.target[0]']]);
      expect((await read(cup)).cia).to.deep.equal(answered('cia', { event: { is_active: true, target: ['shop'] } }));
      expect((await read(mug)).cia).to.deep.equal(answered('cia', { event: { is_active: true, target: ['shop', String(shop)] } }));
      expect((await call('stock/SKU_BOWL/', { token: seller.token })).status).to.equal(404);
    });

    it("when another seller's or an order handler is deleted, then no item of the seller changes", async () => {
      const erp = await stockCiaHandler(seller, 'erp');
      const cup = await createItem(seller, { name: 'Cup', cia: { event: { is_active: true, target: [String(erp), 'erp'] } } });
      const other = await newSeller();
      const theirs = await stockCiaHandler(other, 'erp');
      const orders = await call('admin/event/handler/', {
        token: seller.token,
        body: {
          event_handler: {
            type: { id: 'created' },
            section: 'order',
            action: { id: 'notification', required: { url: 'http://127.0.0.1:9/erp', format: 'post', target_name: 'erp' } },
          },
        },
      });
      expect(orders.status, orders.text).to.equal(201);
      const since = await mark();
      expect((await call(`admin/event/handler/${theirs}/`, { token: other.token, method: 'DELETE' })).status).to.equal(200);
      expect((await call(`admin/event/handler/${orders.body.event_handler_id as number}/`, { token: seller.token, method: 'DELETE' })).status).to.equal(200);
      expect((await read(cup)).cia).to.deep.equal(answered('cia', { event: { is_active: true, target: [String(erp), 'erp'] } }));
      expect(await changedSince(since)).to.deep.equal([]);
    });

    it('when an item names a handler that is gone (stored before targets were checked), then its GET body posts back with 200, and a new target is still checked', async () => {
      const shop = await stockCiaHandler(seller, 'shop');
      const cup = await createItem(seller, { name: 'Cup', cia: { event: { is_active: true, target: ['shop'] } } });
      // As an item written before commit 2351268: a target no handler carries.
      await db().raw(`UPDATE stock SET data = jsonb_set(data, '{cia,event,target}', '["old-erp", "shop"]') WHERE account_id = ? AND id = ?`, [seller.id, cup]);
      expect((await read(cup)).cia).to.deep.equal(answered('cia', { event: { is_active: true, target: ['old-erp', 'shop'] } }));

      await postsBackUnchanged(cup);
      await listPostsBackUnchanged([cup]);
      const added = await call(`stock/${cup}/`, { token: seller.token, body: { stock: { cia: { event: { target: ['old-erp', 'shop', 'nope'] } } } } });
      expect(added.status, added.text).to.equal(400);
      expect(errorFields(added)).to.deep.equal(['stock.cia.event.target[2]']);
      const kept = await call(`stock/${cup}/`, { token: seller.token, body: { stock: { cia: { event: { target: ['old-erp', String(shop)] } } } } });
      expect(kept.status, kept.text).to.equal(200);
      expect((await read(cup)).cia).to.deep.equal(answered('cia', { event: { is_active: true, target: ['old-erp', String(shop)] } }));
      // A name the item dropped is new again when sent back later.
      const again = await call(`stock/${cup}/`, { token: seller.token, body: { stock: { cia: { event: { target: ['shop', 'old-erp'] } } } } });
      expect(again.status, again.text).to.equal(200);
      const dropped = await call(`stock/${cup}/`, { token: seller.token, body: { stock: { cia: { event: { target: [] } } } } });
      expect(dropped.status, dropped.text).to.equal(200);
      const back = await call(`stock/${cup}/`, { token: seller.token, body: { stock: { cia: { event: { target: ['old-erp'] } } } } });
      expect(back.status, back.text).to.equal(400);
      expect(errorFields(back)).to.deep.equal(['stock.cia.event.target[0]']);
    });
  });

  describe('shop_g category[].id after DELETE stock/category/', () => {
    const categories = async (body: unknown) => {
      const res = await call('stock/category/', { token: seller.token, body: { category: body } });
      expect(res.status, res.text).to.equal(201);
    };
    const deleteCategories = async (filter: Record<string, unknown>) => {
      const res = await call(`stock/category/?${query({ filter: { platform: 'shop_g', ...filter } })}`, { token: seller.token, method: 'DELETE' });
      expect(res.status, res.text).to.equal(200);
    };

    it('when a category the item names is deleted, then GET no longer names it, the GET body posts back with 200, and naming it anew is a 400', async () => {
      await categories([
        { platform: 'shop_g', id: 'c1', name: 'Cups' },
        { platform: 'shop_g', id: 'c2', name: 'Mugs' },
        { platform: 'shop_g', id: '10', name: 'Plates' },
      ]);
      // Another request: one portal per request (document 2, Category_type.platform).
      await categories([{ platform: 'market_i', id: 'c1', name: 'Cups at market_i' }]);
      const pa = seller.portalAccountId;
      const cup = await createItem(seller, {
        name: 'Cup',
        sku: 'CUP',
        quantity: 3,
        shop_g: { price: '9.90', category: [{ id: 'c1' }, { id: 'c2', portal_account_id: pa }, { id: 10 }, { id: 'c1', portal_account_id: pa }] },
      });
      const mug = await createItem(seller, { name: 'Mug', sku: 'MUG', shop_g: { category: [{ id: 'c2' }] } });
      const plate = await createItem(seller, { name: 'Plate', sku: 'PLATE', shop_g: { category: [{ id: 10 }] } });
      const since = await mark();

      await deleteCategories({ id: ['c1', '10'] });

      expect((await read(cup)).shop_g).to.deep.include(answeredFields('shop_g', { price: '9.90', category: [{ id: 'c2', portal_account_id: pa }] }));
      expect((await read(mug)).shop_g).to.deep.include(answeredFields('shop_g', { category: [{ id: 'c2' }] }));
      expect((await read(plate)).shop_g).to.deep.include(answeredFields('shop_g', { category: [] }));
      expect(await read(cup)).to.include({ name: 'Cup', sku: 'CUP', quantity: 3 });
      expect(await changedSince(since)).to.deep.equal([cup, plate].sort((a, b) => a - b));
      // The market_i category of the same id was not deleted (the filter named shop_g).
      const marketI = await call(`stock/category/?${query({ filter: { platform: 'market_i' } })}`, { token: seller.token });
      expect((marketI.body.category as { id: string }[]).map((c) => c.id)).to.deep.equal(['c1']);

      await postsBackUnchanged(cup);
      await postsBackUnchanged(plate);
      await listPostsBackUnchanged([cup, mug, plate]);

      await refusedOnCreate(seller, 'NEW-C1', { shop_g: { category: [{ id: 'c1' }] } }, 'stock.shop_g.category[0].id');
      await refusedOnCreate(seller, 'NEW-C1', { shop_g: { category: [{ id: 'c2' }, { id: 10 }] } }, 'stock.shop_g.category[1].id');
      const update = await call(`stock/${cup}/`, {
        token: seller.token,
        body: { stock: { shop_g: { category: [{ id: 'c2', portal_account_id: pa }, { id: 'c1' }] } } },
      });
      expect(update.status, update.text).to.equal(400);
      expect(errorFields(update)).to.deep.equal(['stock.shop_g.category[1].id']);
      const list = await call('stock/list/', {
        token: seller.token,
        body: {
          stock: [
            { id: String(mug), shop_g: { category: [{ id: 'c1' }] } },
            { name: 'Bowl', sku: 'BOWL', shop_g: { category: [{ id: '10' }] } },
          ],
        },
      });
      expect(list.status, list.text).to.equal(207);
      const parts = list.body.response as { code: number; error?: { field?: string }[] }[];
      expect(parts.map((p) => p.code)).to.deep.equal([400, 400]);
      expect(parts.map((p) => p.error!.map((e) => e.field))).to.deep.equal([['stock[0].shop_g.category[0].id'], ['stock[1].shop_g.category[0].id']]);
      expect((await read(cup)).shop_g).to.deep.include(answeredFields('shop_g', { category: [{ id: 'c2', portal_account_id: pa }] }));
      expect((await read(mug)).shop_g).to.deep.include(answeredFields('shop_g', { category: [{ id: 'c2' }] }));
      expect((await call('stock/SKU_BOWL/', { token: seller.token })).status).to.equal(404);
    });

    it('when an item names a category that is gone (stored before ids were checked), then its GET body posts back with 200, and a new id is still checked', async () => {
      await categories({ platform: 'shop_g', id: 'c1' });
      const cup = await createItem(seller, { name: 'Cup', shop_g: { category: [{ id: 'c1' }] } });
      // As an item written before commit 596760f: an id no category has.
      await db().raw(`UPDATE stock SET data = jsonb_set(data, '{shop_g,category}', '[{"id": "old"}, {"id": "c1"}]') WHERE account_id = ? AND id = ?`, [
        seller.id,
        cup,
      ]);
      await postsBackUnchanged(cup);
      await listPostsBackUnchanged([cup]);
      // The same id under a portal account is another reference: checked.
      const moved = await call(`stock/${cup}/`, {
        token: seller.token,
        body: { stock: { shop_g: { category: [{ id: 'old', portal_account_id: seller.portalAccountId }, { id: 'c1' }] } } },
      });
      expect(moved.status, moved.text).to.equal(400);
      expect(errorFields(moved)).to.deep.equal(['stock.shop_g.category[0].id']);
      expect((await read(cup)).shop_g).to.deep.include(answeredFields('shop_g', { category: [{ id: 'old' }, { id: 'c1' }] }));
    });
  });

  describe('a write naming the record while it is deleted (as a foreign key: the delete waits and then removes the name)', () => {
    /**
     * Runs `write` (POST stock/{id}/'s rule, saveStock) in a transaction held open while `remove`
     * (the API's DELETE) is sent: the DELETE must not answer before the write commits, and the
     * item must read without the name afterwards.
     */
    async function racing(write: (trx: Knex.Transaction) => Promise<void>, remove: () => Promise<ApiResponse>): Promise<void> {
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let written!: () => void;
      const wrote = new Promise<void>((resolve) => (written = resolve));
      const trx = db().transaction(async (t) => {
        await write(t);
        written();
        await held;
      });
      await wrote;
      let answered = false;
      const deleted = remove().then((res) => {
        answered = true;
        return res;
      });
      try {
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(answered, 'the delete answered while a write naming the record was open').to.equal(false);
      } finally {
        // Committed also when the assertion failed: a transaction left open would hold the test run.
        release();
        await trx;
      }
      expect((await deleted).status).to.equal(200);
    }
    const ctx = (): SaveContext => ({ warnings: [], title: 'stock', field: 'stock' });

    it('when a handler is deleted while an update names it anew, then the item reads without it once both are done', async () => {
      const erp = await stockCiaHandler(seller, 'erp');
      const cup = await createItem(seller, { name: 'Cup', cia: { event: { is_active: true, target: [] } } });
      await racing(
        async (trx) => {
          await saveStock(trx, seller.id, { cia: { event: { target: [String(erp)] } } } as StockInput, cup, ctx());
        },
        () => call(`admin/event/handler/${erp}/`, { token: seller.token, method: 'DELETE' }),
      );
      expect((await read(cup)).cia).to.deep.equal(answered('cia', { event: { is_active: true, target: [] } }));
      await postsBackUnchanged(cup);
    });

    it('when a category is deleted while a new item names it, then the item reads without it once both are done', async () => {
      const made = await call('stock/category/', { token: seller.token, body: { category: { platform: 'shop_g', id: 'c1' } } });
      expect(made.status, made.text).to.equal(201);
      let cup = 0;
      await racing(
        async (trx) => {
          cup = (await saveStock(trx, seller.id, { name: 'Cup', shop_g: { category: [{ id: 'c1' }] } } as StockInput, undefined, ctx())).stockId;
        },
        () => call(`stock/category/?${query({ filter: { platform: 'shop_g', id: 'c1' } })}`, { token: seller.token, method: 'DELETE' }),
      );
      expect((await read(cup)).shop_g).to.deep.include(answeredFields('shop_g', { category: [] }));
      await postsBackUnchanged(cup);
    });
  });
});
