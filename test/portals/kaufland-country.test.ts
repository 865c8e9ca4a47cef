/**
 * Kaufland's Address.country as its contract writes it (seller-api-v2.openapi.json,
 * components.schemas.Address.country, example "USA": an ISO 3166-1 alpha-3 code) reaches the
 * Kontor order as Order_address_type's country_iso2 and its spelled-out country (document 2), so
 * the invoice takes a US buyer for a foreign one. Placed at the sandbox's Kaufland (which checks
 * requests and answers against the contract; the suite asserts no violation), imported, and read
 * as a client sees the order.
 */
import { expect } from 'chai';
import { importOrders } from '../../lib/order-import/order-import.service';
import { channelLoopForSuite, Sandbox } from '../fleet/support';
import { kauflandItem } from './kaufland-support';
import { kontorOrder, sandboxPost } from './channel-support';

describe('Kaufland buyer country: the three-letter code of its contract as country_iso2', function () {
  this.timeout(60000);
  let sandbox: Sandbox;
  channelLoopForSuite((loop) => ({ sandbox } = loop));

  /** An order of one unit placed at Kaufland by a buyer of that country, imported: the Kontor order's billing and delivery addresses. */
  async function addressesOf(sku: string, country: string) {
    const { seller, portalAccountId, list } = await kauflandItem(sku);
    expect((await list()).state).to.equal('completed');
    const placed = (await sandboxPost(sandbox, '/_sandbox/kaufland/orders', {
      portal_account: portalAccountId,
      lines: [{ id_offer: sku, quantity: 1, price: '24.90' }],
      // The contract's Address example: Tom Smith, Test Ln. 1, 12345 New York, USA.
      buyer: {
        first_name: 'Tom',
        last_name: 'Smith',
        street: 'Test Ln.',
        house_number: '1',
        postcode: '12345',
        city: 'New York',
        country,
        phone: '+491234567',
      },
    })) as { id_order: string };
    const run = await importOrders({ accountId: seller.id, portalAccountId: Number(portalAccountId) }, `kl-country-${sku}`);
    expect(run.orders).to.deep.include({ created: 1 });
    const order = (await kontorOrder(seller, placed.id_order))!;
    return { customer: order.customer.address as Record<string, unknown>, shipping: order.shipping.address as Record<string, unknown> };
  }

  it('when the buyer\'s country is "USA" (the contract\'s example), then both addresses name country_iso2 US and the country spelled out', async () => {
    const { customer, shipping } = await addressesOf('KL-CTRY-USA', 'USA');
    for (const address of [customer, shipping])
      expect(address).to.deep.include({ name: 'Tom Smith', street: 'Test Ln. 1', city: 'New York', country_iso2: 'US', country: 'United States of America' });
  });

  it('when the country is a two-letter code, then it is country_iso2 as before; a three-letter text that is no ISO code stays the spelled-out country', async () => {
    expect((await addressesOf('KL-CTRY-DE', 'de')).customer).to.deep.include({ country_iso2: 'DE', country: null });
    expect((await addressesOf('KL-CTRY-XYZ', 'XYZ')).customer).to.deep.include({ country_iso2: null, country: 'XYZ' });
  });
});
