/**
 * market_e at Kaufland, prices per storefront currency through Kontor's API and workers:
 * UnitRequest.listing_price and minimum_price are "in integral cents of the storefront's currency
 * (CZK for cz, EUR for de, sk, at, fr, it and PLN for pl)". market_e is one field group per portal,
 * so a seller with a de and a cz account had one price sent to both: 19.90 EUR listed at cz as
 * 19.90 CZK. market_e.price is taken as EUR; the cz account takes market_e.currency_prices[] CZK,
 * and without it the listing is refused with nothing sent (lib/portals README, market_e).
 */
import { expect } from 'chai';
import { createPortalAccount } from '../../lib/admin/portal-account-admin.service';
import { connectPortalAccount } from '../../lib/admin/portal-account-connect.service';
import { kauflandOf } from '../../sandbox/kaufland.sandbox';
import { channelLoopForSuite, jobEnd, Sandbox } from '../fleet/support';
import { call, newSeller } from '../support/api';

describe('market_e at Kaufland: a price goes to a storefront only in its currency', function () {
  this.timeout(60000);
  let sandbox: Sandbox;
  channelLoopForSuite((loop) => ({ sandbox } = loop));

  /** A seller with a Kaufland.de account (the sandbox's development account) and a Kaufland.cz account connected with its keys; an item priced plainly at 19.90. */
  async function sellerInDeAndCz(sku: string) {
    const seller = await newSeller();
    const { id: de } = await createPortalAccount(seller.id, { name: 'Kaufland.de', platform: 'market_e' });
    const { id: cz } = await createPortalAccount(seller.id, { name: 'Kaufland.cz', platform: 'market_e' });
    const keys = (await (
      await fetch(`${sandbox.url}/_sandbox/kaufland/keys`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ portal_account: cz }),
      })
    ).json()) as { client_key: string; secret_key: string };
    await connectPortalAccount(seller.id, {
      portalAccountId: cz,
      connector: 'kaufland',
      baseUrl: `${sandbox.url}/v2`,
      credentials: { ...keys, storefront: 'cz' },
    });
    const created = await call('stock/', {
      token: seller.token,
      body: {
        stock: {
          name: 'Teekanne',
          sku,
          quantity: 10,
          market_e: { ean: '4006381333931', price: '19.90', price_min: '17.90', delivery_time: '1-2' },
          cia: { market_e: { is_active: true } },
        },
      },
    });
    expect(created.status, created.text).to.equal(201);
    const stockId = Number(created.body.stock_id);
    /** portal_upload list at the accounts, each part's job to its end (GET job/{id}/ as the seller reads it). */
    const list = async (...portalAccountIds: number[]) => {
      const upload = await call(`stock/${stockId}/portal_upload/`, {
        token: seller.token,
        body: { portal_upload: { market_e: portalAccountIds.map((id) => ({ action: 'list', portal_account_id: id })) } },
      });
      expect(upload.status, upload.text).to.be.oneOf([202, 207]);
      return Promise.all((upload.body.response as { job_id: string }[]).map((part) => jobEnd(seller.token, part.job_id)));
    };
    const k = kauflandOf(sandbox.state);
    const unit = (account: number) => [...k.units.values()].find((u) => u.account === String(account) && u.id_offer === sku);
    /** What reached Kaufland's units endpoints for an account: POST /units, PATCH /units/{id}, POST /units/bulk. */
    const unitWrites = (account: number) =>
      sandbox.state.requests.filter((r) => r.portal === 'market_e' && r.portalAccount === String(account) && r.method !== 'GET' && /^\/v2\/units/.test(r.path));
    return { seller, de, cz, stockId, list, unit, unitWrites };
  }

  it('when an item priced only plainly is listed at a cz storefront and at a de one, then cz is refused naming CZK and what to set, with nothing sent there, and de lists it at 19.90 EUR as before', async () => {
    const { de, cz, list, unit, unitWrites } = await sellerInDeAndCz('KC-PLAIN');
    const [atDe, atCz] = await list(de, cz);
    expect(atDe!.state, atDe!.error).to.equal('completed');
    expect(unit(de)).to.deep.include({ storefront: 'de', listing_price: 1990, minimum_price: 1790, amount: 10 });
    // 19.90 went out as 19.90 CZK (about 0.80 EUR) and the unit sold at that.
    expect(atCz!.state).to.equal('failed');
    expect(atCz!.error).to.contain('SKU KC-PLAIN has no price in the currency of Kaufland storefront cz (CZK)');
    expect(atCz!.error).to.contain("market_e.price (else the item's price) is taken as EUR");
    expect(atCz!.error).to.contain('set market_e.currency_prices[] (currency_id CZK with its price); nothing was sent');
    expect(unitWrites(cz)).to.deep.equal([]);
    expect(unit(cz)).to.equal(undefined);
  });

  it('when the item holds its CZK price in market_e.currency_prices[], then cz lists it in CZK cents with its CZK minimum, and de keeps the EUR price', async () => {
    const { seller, de, cz, stockId, list, unit } = await sellerInDeAndCz('KC-CZK');
    const updated = await call(`stock/${stockId}/`, {
      token: seller.token,
      body: { stock: { market_e: { currency_prices: [{ currency_id: 'czk', price: '499,00', price_min: '449.00' }] } } },
    });
    expect(updated.status, updated.text).to.equal(200);
    const read = await call(`stock/${stockId}/`, { token: seller.token });
    expect((read.body.stock as { market_e: Record<string, unknown> }).market_e).to.deep.include({
      price: '19.90',
      currency_prices: [{ currency_id: 'CZK', price: '499.00', price_min: '449.00' }],
    });
    const [atDe, atCz] = await list(de, cz);
    expect(atDe!.state, atDe!.error).to.equal('completed');
    expect(atCz!.state, atCz!.error).to.equal('completed');
    expect(atCz!.result).to.deep.include({ action: 'list', portal: 'market_e', portal_item_id: String(unit(cz)!.id_unit) });
    expect(unit(cz)).to.deep.include({ storefront: 'cz', listing_price: 49900, minimum_price: 44900 });
    expect(unit(de)).to.deep.include({ storefront: 'de', listing_price: 1990, minimum_price: 1790 });
  });

  it('when a currency_prices[] entry names no currency of system/currency/, then 400 unknown_currency names it and nothing is stored', async () => {
    const { seller, stockId } = await sellerInDeAndCz('KC-BAD');
    const res = await call(`stock/${stockId}/`, {
      token: seller.token,
      body: { stock: { market_e: { currency_prices: [{ currency_id: 'XYZ', price: '1.00' }] } } },
    });
    expect(res.status, res.text).to.equal(400);
    expect(res.body.error![0]).to.include({ field: 'stock.market_e.currency_prices[0].currency_id', error: 'unknown_currency' });
    const read = await call(`stock/${stockId}/`, { token: seller.token });
    expect((read.body.stock as { market_e: Record<string, unknown> }).market_e.currency_prices).to.equal(null);
  });
});
