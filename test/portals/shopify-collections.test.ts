/**
 * The web shop's categories (Stock_webshop_type.category[]) as the Shopify store's collections
 * (issue 33), against the sandbox built from the Admin GraphQL 2025-01 schema: by title, a
 * custom collection made when the store has none, an existing one given the product, a smart one
 * left to its rules, nothing twice.
 */
import { expect } from 'chai';
import type { ListingItem, PortalTarget } from '../../lib/portals/portal.type';
import { ShopifySession } from '../../lib/portals/shopify/shopify-client';
import { WebshopAdapter } from '../../lib/portals/webshop.adapter';
import { shopifyOf } from '../../sandbox/shopify.sandbox';
import type { Sandbox } from '../fleet/support';
import { shopifyStoreForEach } from './shopify-support';

const adapter = new WebshopAdapter();

describe('webshop at Shopify: the web shop categories as collections', () => {
  let sandbox: Sandbox;
  let account: number;
  let target: PortalTarget;
  shopifyStoreForEach((store) => ({ sandbox, account, target } = store));

  const item = (sku: string, category: unknown[]): ListingItem => ({
    stockId: 4712,
    name: `Teekanne ${sku}`,
    sku,
    ean: null,
    price: '24.90',
    quantityAvailable: 3,
    group: { shop_id: 'main', category },
  });
  const collections = async () =>
    (await (await fetch(`${sandbox.url}/_sandbox/shopify/collections?portal_account=${account}`)).json()) as {
      title: string;
      products: string[];
      ruleSet: unknown;
    }[];
  const makeCollection = (title: string, smart = false) =>
    fetch(`${sandbox.url}/_sandbox/shopify/collections`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ portal_account: account, title, smart }),
    });
  const mutations = (name: string) =>
    sandbox.state.requests.filter(
      (r) => r.portal === 'webshop' && r.portalAccount === String(account) && String((r.body as { query?: string }).query).includes(`mutation ${name}(`),
    ).length;

  it('when an item is listed with categories, then each is the collection of that title (made when missing, found ignoring case), smart ones are left to their rules, and listing again adds nothing', async () => {
    await makeCollection('Küche');
    await makeCollection('Angebote', true);
    await adapter.list(target, item('COL-1', ['Teekannen', 'küche', 'Angebote', ' Teekannen ', '']), 'k1');
    const byTitle = Object.fromEntries((await collections()).map((c) => [c.title, c]));
    expect(Object.keys(byTitle).sort()).to.deep.equal(['Angebote', 'Küche', 'Teekannen']);
    expect(byTitle.Teekannen!.products).to.deep.equal(['Teekanne COL-1']);
    expect(byTitle.Teekannen!.ruleSet).to.equal(null);
    expect(byTitle['Küche']!.products).to.deep.equal(['Teekanne COL-1']);
    expect(byTitle.Angebote!.products).to.deep.equal([]);
    expect([mutations('KontorCollectionCreate'), mutations('KontorCollectionAdd')]).to.deep.equal([1, 1]);

    // A second item of the same category joins the collection made for the first.
    await adapter.list(target, item('COL-2', ['TEEKANNEN']), 'k2');
    expect((await collections()).find((c) => c.title === 'Teekannen')!.products).to.deep.equal(['Teekanne COL-1', 'Teekanne COL-2']);
    expect([mutations('KontorCollectionCreate'), mutations('KontorCollectionAdd')]).to.deep.equal([1, 2]);

    // Listed again, revised: the product is in its collections; nothing is sent twice.
    await adapter.list(target, item('COL-1', ['Teekannen', 'Küche']), 'k3');
    await adapter.revise(target, item('COL-1', ['Teekannen', 'Küche']), '1', ['name'], 'k4');
    expect([mutations('KontorCollectionCreate'), mutations('KontorCollectionAdd')]).to.deep.equal([1, 2]);
    expect(shopifyOf(sandbox.state).collections.size).to.be.greaterThanOrEqual(3);
  });

  it('when the product is in more than 50 collections, then one of its categories beyond the first 50 is not added again and listing again succeeds', async () => {
    // 50 categories, then a 51st: the product is in 51 collections, the 51st last.
    const fifty = Array.from({ length: 50 }, (_v, i) => `Serie ${String(i + 1).padStart(2, '0')}`);
    await adapter.list(target, item('COL-51', fifty), 'k6');
    await adapter.list(target, item('COL-51', ['Teeservice']), 'k7');
    expect(mutations('KontorCollectionCreate')).to.equal(51);
    // Shopify refuses a product already in the collection ("an error is raised and no products are added"): listing again and a revise must not send it.
    await adapter.list(target, item('COL-51', ['Teeservice', 'serie 07']), 'k8');
    await adapter.revise(target, item('COL-51', ['Teeservice']), '1', ['name'], 'k9');
    expect([mutations('KontorCollectionCreate'), mutations('KontorCollectionAdd')]).to.deep.equal([51, 0]);
    const mine = (await collections()).filter((c) => c.products.includes('Teekanne COL-51'));
    expect(mine.map((c) => c.title).sort()).to.deep.equal([...fifty, 'Teeservice'].sort());
  });

  it('when the store has more than 50 collections of a category’s title, then the one holding the product is found on a later page and none is made or added to', async () => {
    for (let i = 0; i < 50; i++) await makeCollection('Kannen');
    await adapter.list(target, item('COL-52', ['Geschirr']), 'k10');
    // The seller's store: a 51st collection titled Kannen holding the product (made in Shopify's admin).
    const product = [...shopifyOf(sandbox.state).products.values()].find((p) => p.title === 'Teekanne COL-52')!;
    shopifyOf(sandbox.state).addCollection(String(account), 'Kannen', [product.id]);
    await adapter.list(target, item('COL-52', ['Kannen']), 'k11');
    expect([mutations('KontorCollectionCreate'), mutations('KontorCollectionAdd')]).to.deep.equal([1, 0]);
    expect((await collections()).filter((c) => c.products.includes('Teekanne COL-52')).map((c) => c.title)).to.deep.equal(['Geschirr', 'Kannen']);
  });

  it('when the sandbox is asked to add a product a collection holds already, then it refuses it as the schema says and adds nothing', async () => {
    await adapter.list(target, item('COL-53', ['Tassen']), 'k12');
    const s = shopifyOf(sandbox.state);
    const product = [...s.products.values()].find((p) => p.title === 'Teekanne COL-53')!;
    const tassen = [...s.collections.values()].find((c) => c.account === String(account) && c.title === 'Tassen')!;
    const answer = await new ShopifySession(target).call<{
      collectionAddProducts: { collection: unknown; userErrors: { field: string[]; message: string }[] };
    }>(
      'mutation KontorTestAdd($id: ID!, $productIds: [ID!]!) { collectionAddProducts(id: $id, productIds: $productIds) { collection { id } userErrors { field message } } }',
      { id: tassen.id, productIds: [product.id] },
    );
    expect(answer.collectionAddProducts.collection).to.equal(null);
    expect(answer.collectionAddProducts.userErrors.map((e) => e.field)).to.deep.equal([['productIds', '0']]);
    expect(tassen.products).to.deep.equal([product.id]);
  });

  it('when an item has no categories, then no collection is read or made', async () => {
    await adapter.list(target, item('COL-3', []), 'k5');
    const reads = sandbox.state.requests.filter(
      (r) => r.portalAccount === String(account) && /Kontor(ProductCollections|Collections)\(/.test(String((r.body as { query?: string }).query)),
    );
    expect(reads).to.deep.equal([]);
    expect(await collections()).to.deep.equal([]);
  });
});
