/**
 * The web shop's categories (Stock_webshop_type.category[]) as the Shopify store's collections
 * (issue 33), against the sandbox built from the Admin GraphQL 2025-01 schema: by title, a
 * custom collection made when the store has none, an existing one given the product, a smart one
 * left to its rules, nothing twice.
 */
import { expect } from 'chai';
import type { ListingItem, PortalTarget } from '../../lib/portals/portal.type';
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

  it('when an item has no categories, then no collection is read or made', async () => {
    await adapter.list(target, item('COL-3', []), 'k5');
    const reads = sandbox.state.requests.filter(
      (r) => r.portalAccount === String(account) && /Kontor(ProductCollections|Collections)\(/.test(String((r.body as { query?: string }).query)),
    );
    expect(reads).to.deep.equal([]);
    expect(await collections()).to.deep.equal([]);
  });
});
