import { expect } from 'chai';
import { isPermanent } from '../../lib/errors';
import { KauflandSession, kauflandSignature } from '../../lib/portals/kaufland/kaufland-client';
import { kauflandCarrier } from '../../lib/portals/kaufland/carriers';
import { orderStatus } from '../../lib/portals/kaufland/order-mapping';
import { handlingTime, kauflandEan, unitData } from '../../lib/portals/kaufland/unit-mapping';
import { MarketEAdapter } from '../../lib/portals/market-e.adapter';
import type { ListingItem, PortalTarget, QuantityUpdate } from '../../lib/portals/portal.type';
import { violationsOf } from '../../sandbox/contract/contract-gate';
import { kauflandContract, kauflandOf, NewKauflandOrder } from '../../sandbox/kaufland.sandbox';
import type { SandboxRequest } from '../../sandbox/sandbox.app';
import { Sandbox, sandboxKeepingContract } from '../fleet/support';
import { failure } from '../support/failure';

const adapter = new MarketEAdapter();

const item = (fields: Partial<ListingItem> = {}, group: Record<string, unknown> = {}): ListingItem => ({
  stockId: 4711,
  name: 'Teekanne',
  sku: 'KL-POT',
  ean: '4006381333931',
  price: '24.90',
  quantityAvailable: 7,
  group,
  ...fields,
});

describe('market_e: Stock_market_e_type as a Kaufland unit', () => {
  it('EAN: 13 or 14 digits as they are, 8 and 12 padded to 13, isbn: as its ISBN-13 (an ISBN-10 converted)', () => {
    expect(kauflandEan('4006381333931')).to.equal('4006381333931');
    expect(kauflandEan('04006381333931')).to.equal('04006381333931');
    expect(kauflandEan('96385074')).to.equal('0000096385074');
    expect(kauflandEan('036000291452')).to.equal('0036000291452');
    expect(kauflandEan('isbn:978-3-16-148410-0')).to.equal('9783161484100');
    expect(kauflandEan('isbn:3-499-13599-X')).to.equal('9783499135996');
    expect(() => kauflandEan('isbn:12')).to.throw(/not an ISBN/);
    expect(() => kauflandEan('12345')).to.throw(/13 or 14 digits/);
  });

  it('price and minimum price in cents, handling time from delivery_time X-Y, comment as the note, a numeric location as the warehouse, condition NEW, amount the quantity', () => {
    const { unit, shippingGroup } = unitData(
      item({}, { price: '19,90', price_min: '15.00', delivery_time: '2-4', comment: 'Originalverpackt', location: '17', shipping_group_id: 'Spedition' }),
    );
    expect(unit).to.deep.equal({
      id_offer: 'KL-POT',
      ean: '4006381333931',
      listing_price: 1990,
      minimum_price: 1500,
      handling_time: 2,
      note: 'Originalverpackt',
      id_warehouse: 17,
      condition: 'NEW',
      amount: 7,
    });
    expect(shippingGroup).to.equal('Spedition');
    expect(unitData(item({ sku: null }, { location: 'Regal 4' })).unit)
      .to.include({ id_offer: '4711', listing_price: 2490, handling_time: 1 })
      .and.not.have.property('id_warehouse');
    expect(handlingTime(null)).to.equal(1);
    expect(() => handlingTime('c')).to.throw(/X-Y/);
    expect(() => unitData(item({}, { price_min: '30.00' }))).to.throw(/price_min/);
    expect(() => unitData(item({ ean: null }))).to.throw(/EAN/);
    expect(() => unitData(item({}, { comment: 'x'.repeat(251) }))).to.throw(/250/);
  });

  it("prices per storefront currency: market_e.price (else the item's price) is EUR; a cz or pl storefront takes market_e.currency_prices[] of CZK or PLN, and without one is refused naming the SKU, the storefront, its currency and what to set", () => {
    // An EUR storefront: the plain price as before.
    for (const storefront of ['de', 'at', 'sk', 'fr', 'it'])
      expect(unitData(item({}, { price: '19.90', price_min: '15.00' }), storefront).unit).to.include({ listing_price: 1990, minimum_price: 1500 });
    // cz and pl: 19.90 EUR was sent as 19.90 CZK (about 0.80 EUR) and 19.90 PLN.
    for (const [storefront, currency] of [
      ['cz', 'CZK'],
      ['pl', 'PLN'],
    ]) {
      const refused = (() => {
        try {
          unitData(item({}, { price: '19.90' }), storefront);
        } catch (err) {
          return err as Error;
        }
        throw new Error(`${storefront} was priced`);
      })();
      expect(isPermanent(refused)).to.equal(true);
      expect(refused.message).to.equal(
        `market_e: SKU KL-POT has no price in the currency of Kaufland storefront ${storefront} (${currency}): market_e.price (else the item's price) is taken as EUR; set market_e.currency_prices[] (currency_id ${currency} with its price); nothing was sent`,
      );
      // The item's own price (no market_e.price) too, and an item without a SKU is named by its id_offer.
      expect(() => unitData(item({ sku: null }), storefront)).to.throw(
        `SKU 4711 has no price in the currency of Kaufland storefront ${storefront} (${currency})`,
      );
      // A price in another currency is no price in this one.
      const other = currency === 'CZK' ? 'PLN' : 'CZK';
      expect(() => unitData(item({}, { currency_prices: [{ currency_id: other, price: '99.00' }] }), storefront)).to.throw(`(${currency})`);
    }
    const prices = [
      { currency_id: 'CZK', price: '499.00', price_min: '449.00' },
      { currency_id: 'PLN', price: '89.90' },
    ];
    // The price in the storefront's currency, its minimum with it; the EUR storefronts keep the plain price.
    expect(unitData(item({}, { price: '19.90', currency_prices: prices }), 'cz').unit).to.include({ listing_price: 49900, minimum_price: 44900 });
    expect(unitData(item({}, { price: '19.90', currency_prices: prices }), 'pl').unit)
      .to.include({ listing_price: 8990 })
      .and.not.have.property('minimum_price');
    expect(unitData(item({}, { price: '19.90', currency_prices: prices }), 'de').unit).to.include({ listing_price: 1990 });
    // An EUR entry comes before market_e.price at an EUR storefront (as market_d's); its price_min falls back to market_e.price_min, which is EUR.
    expect(unitData(item({}, { price: '19.90', price_min: '15.00', currency_prices: [{ currency_id: 'EUR', price: '21.00' }] }), 'at').unit).to.include({
      listing_price: 2100,
      minimum_price: 1500,
    });
    // market_e.price_min is EUR: at pl without the entry's own price_min it is refused, not sent as PLN nor left to Kaufland's old one.
    expect(() => unitData(item({}, { price: '19.90', price_min: '15.00', currency_prices: prices }), 'pl')).to.throw(
      'SKU KL-POT: market_e.price_min 15.00 is taken as EUR, and Kaufland storefront pl sells in PLN; set price_min in market_e.currency_prices[] PLN (or clear market_e.price_min); nothing was sent',
    );
    expect(unitData(item({}, { price: '19.90', price_min: '15.00', currency_prices: prices }), 'cz').unit).to.include({ minimum_price: 44900 });
    // The entry's own bounds, named: above 0, the minimum at most the price, the storefront's maximum in its currency.
    expect(() => unitData(item({}, { currency_prices: [{ currency_id: 'CZK', price: '0.00' }] }), 'cz')).to.throw(
      'a price above 0 is required (market_e.currency_prices[] CZK price)',
    );
    expect(() => unitData(item({}, { currency_prices: [{ currency_id: 'CZK', price: '400.00', price_min: '450.00' }] }), 'cz')).to.throw(
      'market_e.currency_prices[] CZK price_min must be above 0 and at most the price',
    );
    expect(() => unitData(item({}, { currency_prices: [{ currency_id: 'PLN', price: '4500000.01' }] }), 'pl')).to.throw(
      "market_e.currency_prices[] PLN price 4500000.01 is above Kaufland's maximum listing price of 4500000.00 PLN at storefront pl",
    );
  });

  it("carriers: document 2's deliverers as Kaufland's carrier codes; Other without a tracking number or for an unknown deliverer", () => {
    expect(kauflandCarrier('DHL', '00340434161094042557')).to.equal('DHL');
    expect(kauflandCarrier('post', 'RR123456789DE')).to.equal('Deutsche Post');
    expect(kauflandCarrier('hermes', 'H1')).to.equal('Hermes');
    expect(kauflandCarrier('Spedition Maier', 'SM-1')).to.equal('Other');
    expect(kauflandCarrier('DHL', undefined)).to.equal('Other');
  });

  it('order status of its order units: open unpaid, need_to_be_sent paid, sent shipped, all cancelled cancelled', () => {
    expect(orderStatus([{ status: 'open' }])).to.deep.equal({ is_paid: false, is_shipped: false, is_cancelled: false });
    expect(orderStatus([{ status: 'need_to_be_sent' }, { status: 'sent' }])).to.deep.equal({ is_paid: true, is_shipped: false, is_cancelled: false });
    expect(orderStatus([{ status: 'sent' }, { status: 'cancelled' }])).to.deep.equal({ is_paid: true, is_shipped: true, is_cancelled: false });
    expect(orderStatus([{ status: 'cancelled' }])).to.deep.equal({ is_paid: false, is_shipped: false, is_cancelled: true });
  });
});

describe('market_e: Kaufland Seller API v2 against the sandbox played from its OpenAPI document', () => {
  let sandbox: Sandbox;
  let account: number;
  let target: PortalTarget;
  // Every request the adapter sent keeps to Kaufland's published contract.
  sandboxKeepingContract('kaufland', (started) => (sandbox = started));
  beforeEach(() => {
    account = 800000 + Math.floor(Math.random() * 100000);
    target = { portalAccountId: account, connector: 'kaufland', baseUrl: sandbox.url, credentials: {} };
  });

  const k = () => kauflandOf(sandbox.state);
  const calls = (path?: string | RegExp): SandboxRequest[] =>
    sandbox.state.requests.filter(
      (r) => r.portal === 'market_e' && r.portalAccount === String(account) && (!path || (typeof path === 'string' ? r.path === path : path.test(r.path))),
    );
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${sandbox.url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const place = async (order: Omit<NewKauflandOrder, 'portal_account'>) =>
    (await post('/_sandbox/kaufland/orders', { portal_account: account, ...order })).body as { id_order: string; id_order_units: number[] };
  const unitOf = (idOffer: string) => [...k().units.values()].find((u) => u.account === String(account) && u.id_offer === idOffer);

  it('the contract is read from ../shared/contracts/kaufland at start; a missing folder names it', () => {
    expect(kauflandContract().title).to.equal('Kaufland.de Seller API v2');
    expect(kauflandContract().version).to.equal('2.27.0');
    expect(() => kauflandContract('/nonexistent/contracts')).to.throw(/\/nonexistent\/contracts\/kaufland is missing/);
  });

  it('a comment of 250 characters outside the BMP (emoji, 500 UTF-16 code units) is the unit note: UnitRequest.note maxLength 250 counts characters; 251 are refused before any call', async () => {
    const note = '🫖'.repeat(250);
    await adapter.list(target, item({}, { comment: note }), 'k1');
    // The sandbox checks the request against the contract (a violation fails the suite's contract check after the test).
    expect(unitOf('KL-POT')).to.deep.include({ note });
    const before = calls('/v2/units').length;
    const refused = await failure(adapter.list(target, item({ sku: 'KL-LONG' }, { comment: `${note}x` }), 'k2'));
    expect(refused.message).to.match(/at most 250 characters/);
    expect(isPermanent(refused)).to.equal(true);
    expect(calls('/v2/units').length).to.equal(before);
  });

  it('list: POST /units by EAN with the signed headers, the shipping group found by name; listed again, the same unit is updated (PATCH), not created twice', async () => {
    const listed = await adapter.list(
      target,
      item({}, { price: '19.90', price_min: '15.00', delivery_time: '3-5', comment: 'Neu', ean: 'isbn:978-3-16-148410-0', shipping_group_id: 'Spedition' }),
      'k1',
    );
    const unit = unitOf('KL-POT')!;
    expect(listed.portalItemId).to.equal(String(unit.id_unit));
    expect(unit).to.deep.include({
      ean: '9783161484100',
      listing_price: 1990,
      minimum_price: 1500,
      handling_time: 3,
      note: 'Neu',
      id_shipping_group: 2,
      amount: 7,
      condition: 'NEW',
    });
    const create = calls('/v2/units').find((r) => r.method === 'POST')!;
    expect(create.status).to.equal(200);
    expect(create.query).to.deep.equal({ storefront: 'de' });
    expect((await adapter.list(target, item({ quantityAvailable: 3 }, { price: '18.00', ean: '9783161484100' }), 'k2')).portalItemId).to.equal(
      listed.portalItemId,
    );
    expect([...k().units.values()].filter((u) => u.account === String(account))).to.have.length(1);
    expect(unitOf('KL-POT')).to.deep.include({ listing_price: 1800, amount: 3 });
    expect(calls(`/v2/units/${unit.id_unit}`).map((r) => [r.method, r.status])).to.deep.equal([['PATCH', 200]]);
    expect(sandbox.state.quantities(String(account)).market_e).to.deep.equal({ 'KL-POT': 3 });
  });

  it("list: a price above the storefront's maximum (1 million EUR, 4.5 million PLN) is refused before any call, naming price and the maximum; the sandbox refuses such a listing_price 400 validation-error", async () => {
    const refused = await failure(adapter.list(target, item({}, { price: '1000000.01' }), 'max1'));
    expect(isPermanent(refused)).to.equal(true);
    expect(refused.message).to.match(/price 1000000\.01 .*1000000\.00 EUR.*storefront de/);
    const pl: PortalTarget = { ...target, credentials: { storefront: 'pl' } };
    const inPln = (price: string) => ({ currency_prices: [{ currency_id: 'PLN', price }] });
    expect((await failure(adapter.list(pl, item({}, inPln('4500000.01')), 'max2'))).message).to.match(/4500000\.00 PLN.*storefront pl/);
    expect(calls('/v2/units').filter((r) => r.method === 'POST')).to.deep.equal([]);
    // The maximum itself is listed.
    await adapter.list(target, item({}, { price: '1000000.00' }), 'max3');
    const unit = unitOf('KL-POT')!;
    expect(unit.listing_price).to.equal(100000000);
    // The sandbox plays the contract's maximum on PATCH (and POST, bulk): refused, nothing changed.
    const patched = await new KauflandSession(target).call('PATCH', `/units/${unit.id_unit}`, { storefront: 'de' }, { listing_price: 100000001 }, [400]);
    expect(patched.status).to.equal(400);
    expect(JSON.stringify(patched.body)).to.match(/validation-error.*listing_price/);
    expect(unitOf('KL-POT')!.listing_price).to.equal(100000000);
  });

  it("list: a shipping group named on GET /shipping-groups' second page (the seller's 31st; a page is at most 30) is found, not refused as unknown", async () => {
    let last = 0;
    for (let i = 3; i <= 31; i++)
      last = (await post('/_sandbox/kaufland/shipping-groups', { portal_account: account, name: `Zone ${i}` })).body.id_shipping_group as number;
    await adapter.list(target, item({}, { shipping_group_id: 'zone 31' }), 'k1');
    expect(unitOf('KL-POT')).to.deep.include({ id_shipping_group: last });
    expect(calls('/v2/shipping-groups').map((r) => [r.status, r.query])).to.deep.equal([
      [200, { storefront: 'de', limit: '30', offset: '0' }],
      [200, { storefront: 'de', limit: '30', offset: '30' }],
    ]);
    const refused = await failure(adapter.list(target, item({ sku: 'KL-OTHER' }, { shipping_group_id: 'Zone 99' }), 'k2'));
    expect(refused.message).to.match(/no shipping group named Zone 99/);
    expect(calls('/v2/shipping-groups')).to.have.length(4);
  });

  it('list: a shipping group behind pages shorter than the 30 asked (Pagination.limit 2, total 3) is found by the total, not refused as unknown after the first short page', async () => {
    const zone = (await post('/_sandbox/kaufland/shipping-groups', { portal_account: account, name: 'Zone 3' })).body.id_shipping_group as number;
    k().pageSize = 2;
    try {
      await adapter.list(target, item({}, { shipping_group_id: 'Zone 3' }), 'k1');
    } finally {
      k().pageSize = 100;
    }
    expect(unitOf('KL-POT')).to.deep.include({ id_shipping_group: zone });
    expect(calls('/v2/shipping-groups').map((r) => r.query?.offset)).to.deep.equal(['0', '2']);
  });

  it('revise and end: PATCH /units/{id_unit} with the mapping; DELETE /units/{id_unit}, and a unit already gone is ended', async () => {
    const { portalItemId } = await adapter.list(target, item(), 'k1');
    await adapter.revise(target, item({ price: '29.00' }, { comment: 'B-Ware' }), portalItemId, [], 'k2');
    expect(unitOf('KL-POT')).to.deep.include({ listing_price: 2900, note: 'B-Ware' });
    await adapter.end(target, 4711, portalItemId, 'k3', { sku: 'KL-POT', group: {} });
    expect(unitOf('KL-POT')).to.equal(undefined);
    expect(sandbox.state.quantities(String(account)).market_e).to.deep.equal({ 'KL-POT': 0 });
    await adapter.end(target, 4711, null, 'k4', { sku: 'KL-POT', group: {} });
    // The end reads the unit's type first (GET /units/{id}: one Kaufland fulfils is put on hold, not deleted).
    expect(calls(/^\/v2\/units/).map((r) => `${r.method} ${r.status}`)).to.deep.equal(['GET 200', 'POST 200', 'PATCH 200', 'GET 200', 'DELETE 204', 'GET 200']);
  });

  it('storefront cz: an item priced plainly (EUR) is neither listed, listed again nor revised there, with no call made; its CZK price in market_e.currency_prices[] is sent in CZK cents; quantities still go as the amount alone', async () => {
    const cz: PortalTarget = { ...target, credentials: { storefront: 'cz' } };
    const plain = { price: '19.90', price_min: '15.00' };
    const refused = await failure(adapter.list(cz, item({}, plain), 'c1'));
    expect(isPermanent(refused)).to.equal(true);
    expect(refused.message).to.contain('SKU KL-POT has no price in the currency of Kaufland storefront cz (CZK)').and.contain('market_e.currency_prices[]');
    // Nothing at all reached Kaufland: no lookup, no shipping group, no unit.
    expect(calls()).to.deep.equal([]);
    expect(unitOf('KL-POT')).to.equal(undefined);

    const inCzk = { ...plain, currency_prices: [{ currency_id: 'CZK', price: '499.00', price_min: '449.00' }] };
    const { portalItemId } = await adapter.list(cz, item({}, inCzk), 'c2');
    expect(unitOf('KL-POT')).to.deep.include({ storefront: 'cz', listing_price: 49900, minimum_price: 44900 });
    const sent = calls(/^\/v2\/units/).length;
    // Its CZK price gone (or never set), the next list (an update of the unit) and a revise are refused with no PATCH.
    for (const refusal of [
      adapter.list(cz, item({ price: '29.00' }, plain), 'c3'),
      adapter.revise(cz, item({ price: '29.00' }, plain), portalItemId, [], 'c4'),
    ])
      expect((await failure(refusal)).message).to.contain('Kaufland storefront cz (CZK)');
    expect(calls(/^\/v2\/units/).length).to.equal(sent);
    expect(unitOf('KL-POT')).to.deep.include({ listing_price: 49900, minimum_price: 44900 });
    await adapter.revise(cz, item({}, { ...plain, currency_prices: [{ currency_id: 'CZK', price: '529.00', price_min: '479.00' }] }), portalItemId, [], 'c5');
    expect(unitOf('KL-POT')).to.deep.include({ listing_price: 52900, minimum_price: 47900 });
    // A quantity push carries no price: the plain-priced group takes nothing from it.
    const pushed = await adapter.setQuantities(cz, [{ stockId: 4711, quantity: 2, key: 'q', sku: 'KL-POT', group: plain }], 'b');
    expect(pushed.map((o) => o.outcome)).to.deep.equal(['accepted']);
    expect(calls('/v2/units/bulk').at(-1)!.body).to.deep.equal([{ id_unit: Number(portalItemId), unit_data: { amount: 2 } }]);
    expect(unitOf('KL-POT')).to.deep.include({ listing_price: 52900, amount: 2 });
  });

  it("CIA: the units' amount through POST /units/bulk, one call for the batch after one lookup per unit (none the next time); an item without a unit is refused; a unit's 5xx retries it", async () => {
    await adapter.list(target, item({ sku: 'A', quantityAvailable: 1 }), 'l1');
    await adapter.list(target, item({ sku: 'B', stockId: 4712, quantityAvailable: 1 }), 'l2');
    const updates: QuantityUpdate[] = [
      { stockId: 4711, quantity: 5, key: 'q1', sku: 'A', group: {} },
      { stockId: 4712, quantity: 0, key: 'q2', sku: 'B', group: {} },
      { stockId: 4713, quantity: 2, key: 'q3', sku: 'C', group: {} },
    ];
    const outcomes = await adapter.setQuantities(target, updates, 'b1');
    expect(outcomes.map((o) => o.outcome)).to.deep.equal(['accepted', 'accepted', 'refused']);
    expect((outcomes[2] as { message: string }).message).to.match(/no Kaufland unit with id_offer C/);
    expect(sandbox.state.quantities(String(account)).market_e).to.deep.equal({ A: 5, B: 0 });
    const bulk = calls('/v2/units/bulk');
    expect(bulk).to.have.length(1);
    expect(bulk[0]!.body).to.deep.equal([
      { id_unit: unitOf('A')!.id_unit, unit_data: { amount: 5 } },
      { id_unit: unitOf('B')!.id_unit, unit_data: { amount: 0 } },
    ]);
    const lookups = calls('/v2/units').filter((r) => r.method === 'GET').length;
    sandbox.state.faults.push({ portal: 'market_e', portalAccount: String(account), reference: 'B', status: 503, remaining: 1, message: 'busy' });
    const again = await adapter.setQuantities(target, updates.slice(0, 2), 'b2');
    expect(again.map((o) => o.outcome)).to.deep.equal(['accepted', 'retry']);
    expect(calls('/v2/units').filter((r) => r.method === 'GET').length).to.equal(lookups);
  });

  it('CIA: two stock items with one master SKU (one Kaufland unit) get the lower quantity sent once, the other refused naming the clash, and the rest of the push goes through', async () => {
    await adapter.list(target, item({ sku: 'SAME', quantityAvailable: 1 }), 'l1');
    await adapter.list(target, item({ sku: 'OTHER', stockId: 4712, quantityAvailable: 1 }), 'l2');
    const updates: QuantityUpdate[] = [
      { stockId: 4711, quantity: 6, key: 'q1', sku: 'SAME', group: {} },
      { stockId: 4713, quantity: 2, key: 'q3', sku: 'SAME', group: {} },
      { stockId: 4712, quantity: 4, key: 'q2', sku: 'OTHER', group: {} },
    ];
    const outcomes = await adapter.setQuantities(target, updates, 'b1');
    expect(outcomes.map((o) => o.outcome)).to.deep.equal(['refused', 'accepted', 'accepted']);
    expect((outcomes[0] as { message: string }).message).to.equal(
      'market_e (Kaufland): stock items 4713 and 4711 share one listing (SKU SAME); the lower quantity, 2 of item 4713, was sent: give each item its own SKU',
    );
    expect(sandbox.state.quantities(String(account)).market_e).to.deep.equal({ SAME: 2, OTHER: 4 });
    expect(calls('/v2/units/bulk').map((r) => r.status)).to.deep.equal([207]);
  });

  it('send_mit: each order unit marked sent with the carrier code and tracking number; a retry sends nothing again; a second package is added as a shipment', async () => {
    await adapter.list(target, item({ quantityAvailable: 5 }), 'l');
    const sold = await place({ lines: [{ id_offer: 'KL-POT', quantity: 2 }] });
    const lines = sold.id_order_units.map((id) => ({ transactionId: String(id), quantity: 1 }));
    const shipment = {
      orderId: 'O1',
      externalOrderId: sold.id_order,
      carrier: 'DHL',
      trackingCode: '00340434161094042557',
      lines,
      package: { index: 0, count: 2 },
    };
    await adapter.markShipped(target, shipment, 's1');
    await adapter.markShipped(target, shipment, 's1');
    await adapter.markShipped(target, { ...shipment, trackingCode: '00340434161094042558', package: { index: 1, count: 2 } }, 's2');
    for (const id of sold.id_order_units) {
      const ou = k().orderUnits.get(id)!;
      expect(ou.status).to.equal('sent');
      expect(ou.shipments).to.deep.equal([
        { carrier_code: 'DHL', tracking_number: '00340434161094042557' },
        { carrier_code: 'DHL', tracking_number: '00340434161094042558' },
      ]);
    }
    const sends = calls(/\/send$/);
    expect(sends.map((r) => r.status)).to.deep.equal([204, 204, 400, 400]);
    expect(sends[0]!.body).to.deep.equal({ tracking_numbers: '00340434161094042557', carrier_code: 'DHL' });
    // The retry finds the units sent and offers the number as a shipment: there already (duplicate-action), nothing added.
    expect(calls('/v2/shipments').map((r) => r.status)).to.deep.equal([400, 400, 204, 204]);
    const unpaid = await place({ lines: [{ id_offer: 'KL-POT' }], status: 'open' });
    const refused = await failure(
      adapter.markShipped(target, { ...shipment, lines: [{ transactionId: String(unpaid.id_order_units[0]), quantity: 1 }] }, 's3'),
    );
    expect(isPermanent(refused)).to.equal(true);
    expect(refused.message).to.match(/missing-payment/);
  });

  it("fetchOrders at the storefront cz: the order in CZK, its amounts the contract's integral cents of that currency as units (listed at 499.00 CZK, not EUR)", async () => {
    const cz: PortalTarget = { ...target, credentials: { storefront: 'cz' } };
    await adapter.list(cz, item({ quantityAvailable: 3 }, { price: '19.90', currency_prices: [{ currency_id: 'CZK', price: '499.00' }] }), 'l');
    expect(unitOf('KL-POT')).to.deep.include({ storefront: 'cz', listing_price: 49900 });
    const since = new Date(Date.now() - 1000);
    const sold = await place({ storefront: 'cz', lines: [{ id_offer: 'KL-POT', quantity: 2, shipping: '99.00' }] });
    const { orders } = await adapter.fetchOrders(cz, since, null);
    expect(orders.map((o) => o.external_order_id)).to.deep.equal([sold.id_order]);
    expect(orders[0]).to.deep.include({ currency_id: 'CZK', paid_amount: '1097.00' });
    expect(orders[0]!.line.map((l) => l.price)).to.deep.equal(['499.00', '499.00']);
    expect(orders[0]!.shipping.fee).to.equal('99.00');
    expect(calls('/v2/order-units')[0]!.query).to.include({ storefront: 'cz' });
  });

  it('cancellation from Kontor: PATCH /order-units/{id}/cancel with a reason; one already cancelled is left as it is', async () => {
    await adapter.list(target, item(), 'l');
    const sold = await place({ lines: [{ id_offer: 'KL-POT' }] });
    await adapter.cancelOrderUnits(target, sold.id_order_units.map(String), 'NoInventory');
    await adapter.cancelOrderUnits(target, sold.id_order_units.map(String), 'NoInventory');
    expect(k().orderUnits.get(sold.id_order_units[0]!)).to.deep.include({ status: 'cancelled', cancel_reason: 'NoInventory' });
  });

  it('fetchOrders: order units by change date, newest first, paged by offset; each order read whole with its buyer, addresses, lines, shipping and payment', async () => {
    await adapter.list(target, item({ quantityAvailable: 9 }, { price: '12.50' }), 'l');
    const since = new Date(Date.now() - 1000);
    const a = await place({
      lines: [{ id_offer: 'KL-POT', quantity: 2, shipping: '4.95' }],
      buyer: {
        first_name: 'Erika',
        last_name: 'Muster',
        email: 'erika@example.de',
        street: 'Lindenweg',
        house_number: '3a',
        postcode: '10115',
        city: 'Berlin',
        phone: '+49 30 1',
      },
    });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const b = await place({ lines: [{ id_offer: 'KL-POT', price: '11.00' }], status: 'open' });
    k().pageSize = 2;
    try {
      const first = await adapter.fetchOrders(target, since, null);
      expect(first.orders.map((o) => o.external_order_id)).to.deep.equal([b.id_order, a.id_order]);
      expect(first.next).to.equal('2');
      const second = await adapter.fetchOrders(target, since, first.next);
      expect(second.orders.map((o) => o.external_order_id)).to.deep.equal([a.id_order]);
      expect(second.next).to.equal(null);
      const order = second.orders[0]!;
      expect(order.line).to.deep.equal(
        a.id_order_units.map((id) => ({ transaction_id: String(id), sku: 'KL-POT', name: 'Product 4006381333931', quantity: 1, price: '12.50', tax: '19' })),
      );
      expect(order.customer).to.deep.include({ email: 'erika@example.de', phone_1: '+49 30 1' });
      expect(order.customer.address).to.deep.equal({ name: 'Erika Muster', street: 'Lindenweg 3a', zip: '10115', city: 'Berlin', country_iso2: 'DE' });
      expect(order.shipping).to.deep.equal({ fee: '4.95', address: order.customer.address });
      expect(order).to.deep.include({ currency_id: 'EUR', paid_amount: '29.95', status: { is_paid: true, is_shipped: false, is_cancelled: false } });
      expect(first.orders[0]).to.deep.include({ paid_amount: '0.00', status: { is_paid: false, is_shipped: false, is_cancelled: false } });
    } finally {
      k().pageSize = 100;
    }
    const pages = calls('/v2/order-units');
    // "Should be in YYYY-MM-ddTHH:mm:ssZ format": whole seconds, rounded down (the window only widens).
    const sinceSeconds = `${since.toISOString().slice(0, 19)}Z`;
    // fulfillment_type named: the contract's default lists the units the seller fulfils only.
    expect(pages[0]!.query).to.deep.equal({
      storefront: 'de',
      fulfillment_type: ['fulfilled_by_merchant', 'fulfilled_by_kaufland'],
      ts_updated_from_iso: sinceSeconds,
      sort: 'ts_updated:desc',
      limit: '100',
      offset: '0',
    });
    // The sandbox refuses the milliseconds toISOString gives (the adapter sent them before).
    const refused = await new KauflandSession(target).call(
      'GET',
      '/order-units',
      { storefront: 'de', ts_updated_from_iso: '2026-11-01T00:00:00.123Z' },
      undefined,
      [400],
    );
    expect([refused.status, JSON.stringify(refused.body)]).to.deep.equal([
      400,
      JSON.stringify({
        type: '/problems/validation-error',
        message: 'Request parameters have invalid values',
        errors: [{ field: 'ts_updated_from_iso', message: '2026-11-01T00:00:00.123Z is not in YYYY-MM-ddTHH:mm:ssZ format' }],
      }),
    ]);
    // a was read whole on the first page (one of its units was there) and is unchanged on the second: not read again.
    expect(calls(/^\/v2\/orders\//)).to.have.length(2);
  });

  it('calls per order and per quantity: a page of 40 orders costs one order-units call and one order read each; 160 quantities two bulk calls (150 + 10) after listing the units (two pages), no lookup the next time', async () => {
    const now = new Date().toISOString();
    for (let i = 0; i < 160; i++)
      k().units.set(700000 + account * 1000 + i, {
        id_unit: 700000 + account * 1000 + i,
        account: String(account),
        storefront: 'de',
        id_offer: `M-${i}`,
        ean: '4006381333931',
        id_product: 1,
        amount: 50,
        listing_price: 990,
        minimum_price: null,
        condition: 'NEW',
        note: null,
        handling_time: 1,
        id_shipping_group: null,
        id_warehouse: null,
        status: 'AVAILABLE',
        date_inserted_iso: now,
        date_lastchange_iso: now,
        listed_from: 0,
        fulfillment_type: 'fulfilled_by_merchant',
      });
    const since = new Date(Date.now() - 1000);
    for (let i = 0; i < 40; i++) await place({ lines: [{ id_offer: `M-${i}` }] });
    const page = await adapter.fetchOrders(target, since, null);
    expect(page.orders).to.have.length(40);
    expect(page.next).to.equal(null);
    expect(calls('/v2/order-units')).to.have.length(1);
    expect(calls(/^\/v2\/orders\//)).to.have.length(40);
    const updates: QuantityUpdate[] = Array.from({ length: 160 }, (_, i) => ({ stockId: 10000 + i, quantity: i, key: `q${i}`, sku: `M-${i}`, group: {} }));
    expect((await adapter.setQuantities(target, updates, 'b1')).every((o) => o.outcome === 'accepted')).to.equal(true);
    expect(calls('/v2/units/bulk').map((r) => (r.body as unknown[]).length)).to.deep.equal([150, 10]);
    // 160 unknown offers: the storefront's units listed, two pages of 100, instead of 160 lookups.
    expect(
      calls('/v2/units')
        .filter((r) => r.method === 'GET')
        .map((r) => r.query),
    ).to.deep.equal([
      { storefront: 'de', fulfillment_type: ['fulfilled_by_merchant', 'fulfilled_by_kaufland'], limit: '100', offset: '0' },
      { storefront: 'de', fulfillment_type: ['fulfilled_by_merchant', 'fulfilled_by_kaufland'], limit: '100', offset: '100' },
    ]);
    await adapter.setQuantities(target, updates, 'b2');
    expect(calls('/v2/units').filter((r) => r.method === 'GET')).to.have.length(2);
    expect(calls('/v2/units/bulk')).to.have.length(4);
    expect(sandbox.state.quantities(String(account)).market_e!['M-159']).to.equal(159);
  });

  it('a bad signature (a wrong secret key) is refused 401 corrupted-signature and fails the job for good, naming the portal account', async () => {
    const keys = (await post('/_sandbox/kaufland/keys', { portal_account: account })).body as { client_key: string; secret_key: string };
    const wrong = { ...target, credentials: { client_key: keys.client_key, secret_key: 'not-the-secret', storefront: 'de' } };
    const err = await failure(adapter.list(wrong, item(), 'k'));
    expect(isPermanent(err)).to.equal(true);
    expect(err.message).to.match(new RegExp(`401.*corrupted-signature.*portal account ${account}`));
    const right = { ...target, credentials: { client_key: keys.client_key, secret_key: keys.secret_key, storefront: 'de' } };
    expect((await adapter.list(right, item(), 'k')).portalItemId).to.match(/^\d+$/);
    expect(calls().map((r) => r.status)).to.deep.equal([401, 200, 200]);
  });

  it('the signature covers method, full URI, body and timestamp: another body, an old timestamp or a missing header (a Shop-* one, User-Agent) is refused', async () => {
    const uri = `${sandbox.url}/v2/units?storefront=de`;
    const body = JSON.stringify({ id_offer: 'X', ean: '4006381333931', listing_price: 100, handling_time: 1 });
    const ts = Math.floor(Date.now() / 1000);
    const send = (headers: Record<string, string>, sent = body) =>
      fetch(uri, { method: 'POST', headers: { 'Content-Type': 'application/json', 'Shop-Client-Key': `sandbox-account-${account}`, ...headers }, body: sent });
    const sig = (t: number, b = body) => kauflandSignature('POST', uri, b, t, `sandbox-secret-${account}`);
    const tampered = await send({ 'Shop-Timestamp': String(ts), 'Shop-Signature': sig(ts) }, body.replace('100', '1'));
    expect(tampered.status).to.equal(401);
    expect(((await tampered.json()) as { type: string }).type).to.equal('/problems/corrupted-signature');
    const old = await send({ 'Shop-Timestamp': String(ts - 3600), 'Shop-Signature': sig(ts - 3600) });
    expect(old.status).to.equal(401);
    expect(((await old.json()) as { type: string }).type).to.equal('/problems/missing-or-invalid-request-header');
    expect((await send({ 'Shop-Timestamp': String(ts) })).status).to.equal(401);
    const anonymous = await send({ 'Shop-Timestamp': String(ts), 'Shop-Signature': sig(ts), 'User-Agent': '' });
    expect(anonymous.status).to.equal(401);
    expect(((await anonymous.json()) as { message: string }).message).to.match(/User-Agent/);
    const good = await send({ 'Shop-Timestamp': String(ts), 'Shop-Signature': sig(ts) });
    expect(good.status).to.equal(200);
  });

  it('a request that breaks the contract is answered 400 validation-error and recorded at /_sandbox/violations?vendor=kaufland', async () => {
    const uri = `${sandbox.url}/v2/units?storefront=xx`;
    const body = JSON.stringify({ id_offer: 'X', listing_price: 0, colour: 'blau' });
    const ts = Math.floor(Date.now() / 1000);
    const res = await fetch(uri, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'Shop-Client-Key': `sandbox-account-${account}`,
        'Shop-Timestamp': String(ts),
        'Shop-Signature': kauflandSignature('POST', uri, body, ts, `sandbox-secret-${account}`),
      },
      body,
    });
    expect(res.status).to.equal(400);
    const answer = (await res.json()) as { type: string; errors: { field: string; message: string }[] };
    expect(answer.type).to.equal('/problems/validation-error');
    expect(answer.errors.map((e) => e.field)).to.have.members(['storefront', 'body', 'colour', 'listing_price']);
    expect(answer.errors.find((e) => e.field === 'body')!.message).to.match(/handling_time/);
    const recorded = (await (await fetch(`${sandbox.url}/_sandbox/violations?vendor=kaufland`)).json()) as { operationId: string }[];
    expect(recorded.map((v) => v.operationId)).to.deep.equal(['createUnit']);
    violationsOf(sandbox.state).clear();
  });

  it('a query parameter the operation does not name is refused 400 validation-error naming it (storefront on GET /orders/{id_order} would filter nothing)', async () => {
    const session = new KauflandSession(target);
    const refused = await failure(session.call('GET', '/orders/MXYZ', { storefront: 'de' }));
    expect(isPermanent(refused)).to.equal(true);
    expect(refused.message).to.match(
      /answered 400 to GET \/orders\/MXYZ: Request parameters have invalid values \(storefront: storefront is not a query parameter of GetOrder\)/,
    );
    const recorded = violationsOf(sandbox.state).of('kaufland');
    expect(recorded.map((v) => [v.operationId, v.problems.map((p) => p.name)])).to.deep.equal([['GetOrder', ['storefront']]]);
    violationsOf(sandbox.state).clear();
  });

  it("the rate limit: beyond the seller's requests a second, 429 with Retry-After and X-RateLimit headers; the adapter waits and carries on", async () => {
    k().rateLimit = 2;
    try {
      await adapter.list(target, item({ sku: 'R1' }), 'r1');
      await adapter.list(target, item({ sku: 'R2' }), 'r2');
      expect(k().throttled).to.be.greaterThan(0);
      expect(unitOf('R2')).to.not.equal(undefined);
      const statuses = calls().map((r) => r.status);
      expect(statuses).to.include(429);
      expect(statuses.at(-1)).to.equal(200);
    } finally {
      k().rateLimit = 111;
    }
    const probe = await fetch(`${sandbox.url}/v2/carriers`, {
      headers: (() => {
        const ts = Math.floor(Date.now() / 1000);
        return {
          'Shop-Client-Key': `sandbox-account-${account}`,
          'Shop-Timestamp': String(ts),
          'Shop-Signature': kauflandSignature('GET', `${sandbox.url}/v2/carriers`, '', ts, `sandbox-secret-${account}`),
        };
      })(),
    });
    expect(probe.headers.get('x-ratelimit-limit')).to.equal('111');
    expect(Number(probe.headers.get('x-ratelimit-remaining'))).to.be.within(0, 110);
  });

  it('a 429 whose Retry-After is long fails the call retryable with it; a 5xx too', async () => {
    sandbox.state.faults.push({ portal: 'market_e', portalAccount: String(account), status: 429, remaining: 1, retryAfter: '30', message: 'slow down' });
    const err = await failure(adapter.list(target, item(), 'k'));
    expect(isPermanent(err)).to.equal(false);
    expect(err.message).to.match(/429.*slow down/);
    expect(err.retryAfterSeconds).to.equal(30);
  });

  it('credentials: one key without the other is refused naming it; a storefront not of Kaufland too', async () => {
    expect((await failure(adapter.list({ ...target, credentials: { client_key: 'k' } }, item(), 'k'))).message).to.match(/lacks the credential secret_key/);
    expect((await failure(adapter.list({ ...target, credentials: { storefront: 'uk' } }, item(), 'k'))).message).to.match(/storefront uk/);
  });
});
