/**
 * A Kaufland seller's portal account connected through `kontor portal-account connect
 * --connector kaufland` (keys sealed, never answered), calling the sandbox's Kaufland with them;
 * a cancellation at Kaufland reaching the imported order.
 */
import { expect } from 'chai';
import { createPortalAccount } from '../../lib/admin/portal-account-admin.service';
import { connectPortalAccount } from '../../lib/admin/portal-account-connect.service';
import { db } from '../../lib/db/knex';
import { importOrders } from '../../lib/order-import/order-import.service';
import { MarketEAdapter } from '../../lib/portals/market-e.adapter';
import { portalTargetRepository } from '../../lib/portal-account/portal-target.repository';
import { kauflandOf } from '../../sandbox/kaufland.sandbox';
import { Sandbox, sandboxKeepingContract } from '../fleet/support';
import { readOrder } from '../order/helpers';
import { call, newSeller } from '../support/api';
import { kontor } from '../support/cli';
import { failure } from '../support/failure';

describe('market_e: connecting a Kaufland account and its cancellations', function () {
  this.timeout(60000);
  let sandbox: Sandbox;
  sandboxKeepingContract('kaufland', (started) => (sandbox = started));
  const keysFor = async (portalAccountId: number) =>
    (await (
      await fetch(`${sandbox.url}/_sandbox/kaufland/keys`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ portal_account: portalAccountId }),
      })
    ).json()) as { client_key: string; secret_key: string };

  it('when support connects the account with its client key, secret key and storefront, then they are sealed, never answered, and the calls are signed with them', async () => {
    const seller = await newSeller();
    const { id } = await createPortalAccount(seller.id, { name: 'Kaufland.cz', platform: 'market_e' });
    const keys = await keysFor(id);
    const out = await kontor(
      'portal-account',
      'connect',
      '--login',
      seller.login,
      '--portal-account',
      String(id),
      '--connector',
      'kaufland',
      '--base-url',
      `${sandbox.url}/v2`,
      '--client-key',
      keys.client_key,
      '--secret-key',
      keys.secret_key,
      '--storefront',
      'cz',
    );
    expect(out.code, out.err).to.equal(0);
    expect(out.out).to.not.include(keys.secret_key);
    expect(JSON.parse(out.out)).to.deep.include({ connector: 'kaufland', platform: 'market_e', credentials: ['client_key', 'secret_key', 'storefront'] });
    const row = (await db()('portal_account').where({ id }).first('credentials', 'base_url')) as { credentials: string; base_url: string };
    expect(row.credentials).to.not.include(keys.secret_key);
    expect(row.base_url).to.equal(`${sandbox.url}/v2`);
    const target = (await portalTargetRepository.target(db(), seller.id, id))!;
    expect(target.credentials).to.deep.equal({ client_key: keys.client_key, secret_key: keys.secret_key, storefront: 'cz' });
    const listed = await new MarketEAdapter().list(
      target,
      // Its price in CZK (market_e.currency_prices[]): the item's price is taken as EUR, which cz does not sell in.
      {
        stockId: 1,
        name: 'Hrnek',
        sku: 'CZ-1',
        ean: '4006381333931',
        price: '9.90',
        quantityAvailable: 4,
        group: { currency_prices: [{ currency_id: 'CZK', price: '249.00' }] },
      },
      'k',
    );
    const unit = kauflandOf(sandbox.state).units.get(Number(listed.portalItemId))!;
    expect(unit).to.deep.include({ account: String(id), storefront: 'cz', listing_price: 24900, amount: 4 });
  });

  it('when the connect misses a key or names another storefront, then it is refused naming the option; without a base URL Kaufland production is used', async () => {
    const seller = await newSeller();
    const { id } = await createPortalAccount(seller.id, { name: 'Kaufland.de', platform: 'market_e' });
    const missing = await failure(
      connectPortalAccount(seller.id, { portalAccountId: id, connector: 'kaufland', credentials: { client_key: 'a', secret_key: 'b' } }),
    );
    expect(missing.message).to.match(/--storefront is required/);
    const wrong = await failure(
      connectPortalAccount(seller.id, { portalAccountId: id, connector: 'kaufland', credentials: { client_key: 'a', secret_key: 'b', storefront: 'uk' } }),
    );
    expect(wrong.message).to.match(/--storefront must be one of/);
    const extra = await failure(
      connectPortalAccount(seller.id, {
        portalAccountId: id,
        connector: 'kaufland',
        credentials: { client_key: 'a', secret_key: 'b', storefront: 'de', refresh_token: 'x' },
      }),
    );
    expect(extra.message).to.match(/--refresh-token is not used/);
    const ok = await connectPortalAccount(seller.id, {
      portalAccountId: id,
      connector: 'kaufland',
      credentials: { client_key: 'a', secret_key: 'b', storefront: 'de' },
    });
    expect(ok).to.deep.include({ base_url: 'https://sellerapi.kaufland.com/v2', credentials: ['client_key', 'secret_key', 'storefront'] });
    const other = await createPortalAccount(seller.id, { name: 'eBay', platform: 'auction_a' });
    expect((await failure(connectPortalAccount(seller.id, { portalAccountId: other.id, connector: 'kaufland', credentials: {} }))).message).to.match(
      /speaks to market_e/,
    );
  });

  it('when two fetches of the account run at once (the schedule and a retry), then each Kaufland order is one Kontor order and the stock is taken once', async () => {
    const seller = await newSeller();
    const stock = await call('stock/', { token: seller.token, body: { stock: { name: 'Becher', sku: 'KL-TWICE', quantity: 10 } } });
    expect(stock.status, stock.text).to.equal(201);
    const { id: portalAccountId } = await createPortalAccount(seller.id, { name: 'Kaufland.de', platform: 'market_e' });
    const target = (await portalTargetRepository.target(db(), seller.id, portalAccountId))!;
    await new MarketEAdapter().list(
      target,
      { stockId: Number(stock.body.stock_id), name: 'Becher', sku: 'KL-TWICE', ean: '4006381333931', price: '9.90', quantityAvailable: 10, group: {} },
      'k',
    );
    for (const quantity of [1, 2, 3])
      await fetch(`${sandbox.url}/_sandbox/kaufland/orders`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ portal_account: portalAccountId, lines: [{ id_offer: 'KL-TWICE', quantity }] }),
      });
    const runs = await Promise.all([1, 2, 3].map((n) => importOrders({ accountId: seller.id, portalAccountId }, `twice-${n}`)));
    expect(runs.reduce((sum, r) => sum + r.orders.created, 0)).to.equal(3);
    expect(await db()('channel_order').where({ account_id: seller.id, portal_account_id: portalAccountId })).to.have.length(3);
    const item = await call(`stock/${stock.body.stock_id}/`, { token: seller.token });
    expect((item.body.stock as { quantity: number }).quantity).to.equal(4);
  });

  it('when Kaufland cancels every order unit of an imported order, then the next fetch cancels the Kontor order; one cancelled unit of two leaves it open', async () => {
    const seller = await newSeller();
    const { id: portalAccountId } = await createPortalAccount(seller.id, { name: 'Kaufland.de', platform: 'market_e' });
    const target = (await portalTargetRepository.target(db(), seller.id, portalAccountId))!;
    await new MarketEAdapter().list(
      target,
      { stockId: 9, name: 'Becher', sku: 'KL-CUP', ean: '4006381333931', price: '9.90', quantityAvailable: 5, group: {} },
      'k',
    );
    const place = async (quantity: number) =>
      (await (
        await fetch(`${sandbox.url}/_sandbox/kaufland/orders`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ portal_account: portalAccountId, lines: [{ id_offer: 'KL-CUP', quantity }] }),
        })
      ).json()) as { id_order: string; id_order_units: number[] };
    const whole = await place(1);
    const half = await place(2);
    expect((await importOrders({ accountId: seller.id, portalAccountId }, 'c-1')).orders).to.deep.include({ created: 2 });
    const cancel = (unit: number) =>
      fetch(`${sandbox.url}/_sandbox/kaufland/order-units/${unit}/status`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ status: 'cancelled' }),
      });
    await cancel(whole.id_order_units[0]!);
    await cancel(half.id_order_units[0]!);
    await new Promise((resolve) => setTimeout(resolve, 5));
    await importOrders({ accountId: seller.id, portalAccountId }, 'c-2');
    const orderOf = async (external: string) => {
      const row = (await db()('sales_order').where({ account_id: seller.id, external_order_id: external }).first('id'))!;
      return readOrder(seller, row.id);
    };
    expect((await orderOf(whole.id_order)).status).to.deep.include({ is_cancelled: true });
    expect((await orderOf(half.id_order)).status).to.deep.include({ is_cancelled: false, is_paid: true });
  });
});
