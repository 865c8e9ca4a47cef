/**
 * A Shopify store's portal account connected through `kontor portal-account connect --connector
 * shopify` (shop domain and Admin API token sealed, never answered), calling the sandbox's store
 * with them; a domain that is not a store's refused.
 */
import { expect } from 'chai';
import { createPortalAccount } from '../../lib/admin/portal-account-admin.service';
import { db } from '../../lib/db/knex';
import { portalTargetRepository } from '../../lib/portal-account/portal-target.repository';
import { WebshopAdapter } from '../../lib/portals/webshop.adapter';
import { shopifyOf } from '../../sandbox/shopify.sandbox';
import { Sandbox, sandboxKeepingContract } from '../fleet/support';
import { newSeller } from '../support/api';
import { kontor } from '../support/cli';

describe('webshop: connecting a Shopify store', function () {
  this.timeout(60000);
  let sandbox: Sandbox;
  sandboxKeepingContract('shopify', (started) => (sandbox = started));

  it('when support connects the account with the store domain and access token, then they are sealed, never answered, and the calls carry the token', async () => {
    const seller = await newSeller();
    const { id } = await createPortalAccount(seller.id, { name: 'Shop', platform: 'webshop' });
    const issued = (await (
      await fetch(`${sandbox.url}/_sandbox/shopify/tokens`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ portal_account: `store-${id}` }),
      })
    ).json()) as { access_token: string };
    const out = await kontor(
      'portal-account',
      'connect',
      '--login',
      seller.login,
      '--portal-account',
      String(id),
      '--connector',
      'shopify',
      '--base-url',
      sandbox.url,
      '--shop-domain',
      'kobalt-tee.myshopify.com',
      '--access-token',
      issued.access_token,
    );
    expect(out.code, out.err).to.equal(0);
    expect(out.out).to.not.include(issued.access_token);
    expect(JSON.parse(out.out)).to.deep.include({ connector: 'shopify', platform: 'webshop', credentials: ['shop_domain', 'access_token'] });
    const row = (await db()('portal_account').where({ id }).first('credentials')) as { credentials: string };
    expect(row.credentials).to.not.include(issued.access_token);
    const target = (await portalTargetRepository.target(db(), seller.id, id))!;
    expect(target.credentials).to.deep.equal({ shop_domain: 'kobalt-tee.myshopify.com', access_token: issued.access_token });
    await new WebshopAdapter().list(
      target,
      { stockId: 1, name: 'Becher', sku: 'B-1', ean: null, price: '9.90', quantityAvailable: 4, group: { shop_id: 'main' } },
      'k',
    );
    // The store the token belongs to holds the variant, not the development account of the id.
    expect(shopifyOf(sandbox.state).variantBySku(`store-${id}`, 'B-1')).to.include({ price: '9.90' });
    expect(shopifyOf(sandbox.state).variantBySku(String(id), 'B-1')).to.equal(undefined);
  });

  it('a domain that is not a myshopify.com store, or a token without a domain, is refused', async () => {
    const seller = await newSeller();
    const { id } = await createPortalAccount(seller.id, { name: 'Shop', platform: 'webshop' });
    const base = ['portal-account', 'connect', '--login', seller.login, '--portal-account', String(id), '--connector', 'shopify'];
    const wrong = await kontor(...base, '--shop-domain', 'shop.example.com', '--access-token', 'shpat_x');
    expect(wrong.code).to.not.equal(0);
    expect(wrong.err).to.match(/--shop-domain must be the store's <name>\.myshopify\.com domain/);
    const missing = await kontor(...base, '--access-token', 'shpat_x');
    expect(missing.code).to.not.equal(0);
    expect(missing.err).to.match(/--shop-domain is required for --connector shopify/);
  });
});
