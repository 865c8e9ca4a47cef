/**
 * market_e at Kaufland: GET /units "may [show] a delay of up to several minutes between adding a
 * new unit and when it will be available through this endpoint" (seller-api-v2.openapi.json,
 * GET /units). The sandbox plays it (a new unit is missing from the list for 2 minutes). A process
 * that did not create the unit itself (another portal_upload process, or the same one after a
 * restart: `forgetKauflandUnits`) must still find it: Kontor's record of the listing names it.
 */
import { expect } from 'chai';
import { config, setConfig } from '../../config';
import { db } from '../../lib/db/knex';
import { DomainError } from '../../lib/errors';
import { portalTargetRepository } from '../../lib/portal-account';
import { stockPortalRepository } from '../../lib/stock';
import { forgetKauflandUnits, MarketEAdapter } from '../../lib/portals/market-e.adapter';
import { kauflandOf } from '../../sandbox/kaufland.sandbox';
import { channelLoopForSuite, jobEnd, Sandbox, waitFor } from '../fleet/support';
import { kauflandItem } from './kaufland-support';
import { call } from '../support/api';

describe('market_e at Kaufland: a unit GET /units does not list yet is found through the listing Kontor recorded', function () {
  this.timeout(60000);
  let sandbox: Sandbox;
  channelLoopForSuite((loop) => ({ sandbox } = loop));

  /** A seller with an item (10 in stock, CIA on) listed at the sandbox's Kaufland by portal_upload; then the process forgets the unit. */
  async function listedThenForgotten(sku: string) {
    const { seller, portalAccountId, stockId, list } = await kauflandItem(sku);
    const listed = await list();
    expect(listed.state, listed.error).to.equal('completed');
    const k = kauflandOf(sandbox.state);
    const units = () => [...k.units.values()].filter((u) => u.account === String(portalAccountId) && u.id_offer === sku);
    expect(units()).to.have.length(1);
    // What GET /units answers now: not the new unit (the contract's delay).
    expect(units()[0]!.listed_from).to.be.greaterThan(Date.now() + 60_000);
    forgetKauflandUnits();
    return { seller, portalAccountId, stockId, list, units };
  }

  it('when the quantity changes minutes after the listing in a process that did not list it, then CIA sets the amount of the recorded unit (it was refused as "no Kaufland unit" and Kaufland kept offering 10)', async () => {
    const { seller, stockId, units } = await listedThenForgotten('KU-LAG-1');
    const changed = await call(`stock/${stockId}/`, { token: seller.token, body: { stock: { quantity: 4 } } });
    expect(changed.status, changed.text).to.equal(200);
    await waitFor('4 at Kaufland', () => units()[0]?.amount === 4, 20000);
    const refused = await db()('cia_portal_state').where({ account_id: seller.id, stock_id: stockId, portal: 'market_e' }).first('refused_seq', 'desired_seq');
    expect(Number(refused!.refused_seq)).to.be.lessThan(Number(refused!.desired_seq));
  });

  it('when the item is listed again by a process that did not list it, then the recorded unit is updated, not a second one created (POST /units adds a unit per call: the offer stood twice)', async () => {
    const { list, units } = await listedThenForgotten('KU-LAG-2');
    const before = units()[0]!.id_unit;
    const again = await list();
    expect(again.state, again.error).to.equal('completed');
    expect(again.result).to.deep.include({ portal_item_id: String(before) });
    expect(units().map((u) => u.id_unit)).to.deep.equal([before]);
  });

  it('when the recorded unit was deleted at Kaufland and the seller made another, then the push retries once and then finds the new one by its id_offer', async () => {
    const { seller, portalAccountId, stockId, units } = await listedThenForgotten('KU-LAG-3');
    const k = kauflandOf(sandbox.state);
    const old = units()[0]!;
    k.units.delete(old.id_unit);
    k.units.set(old.id_unit + 1_000_000, { ...old, id_unit: old.id_unit + 1_000_000, listed_from: 0 });
    const target = (await portalTargetRepository.target(db(), seller.id, portalAccountId))!;
    const aids = {
      ledger: { reserve: async () => new Map(), spend: async () => undefined },
      listedItems: async () => new Map([[stockId, String(old.id_unit)]]),
    };
    const update = { stockId, quantity: 3, key: 'q1', sku: 'KU-LAG-3', group: {} };
    const adapter = new MarketEAdapter();
    expect((await adapter.setQuantities(target, [update], 'b1', aids))[0]).to.deep.include({ outcome: 'retry' });
    expect(await adapter.setQuantities(target, [update], 'b2', aids)).to.deep.equal([{ stockId, outcome: 'accepted' }]);
    expect(units().map((u) => [u.id_unit, u.amount])).to.deep.equal([[old.id_unit + 1_000_000, 3]]);
  });

  /** What a portal_upload worker sends for the seller's item (its target and listing item), to call the adapter as that worker. */
  async function asWorker(sku: string) {
    const made = await kauflandItem(sku);
    const target = (await portalTargetRepository.target(db(), made.seller.id, made.portalAccountId))!;
    const item = { ...(await stockPortalRepository.listingItem(db(), made.seller.id, made.stockId, 'market_e'))!, listedAs: null };
    const k = kauflandOf(sandbox.state);
    const units = () => [...k.units.values()].filter((u) => u.account === String(made.portalAccountId) && u.id_offer === sku);
    return { ...made, target, item, units };
  }

  it('when the worker died after Kaufland answered POST /units and before Kontor recorded the unit, then the retry updates that unit instead of creating a second (GET /units did not show it yet: the offer stood twice)', async () => {
    const { target, item, list, units } = await asWorker('KU-LAG-4');
    // The worker that died: Kaufland made the unit and answered; portal_listing names none.
    const { portalItemId } = await new MarketEAdapter().list(target, item, 'died');
    forgetKauflandUnits();
    const again = await list();
    expect(again.state, again.error).to.equal('completed');
    expect(again.result).to.deep.include({ portal_item_id: portalItemId });
    expect(units().map((u) => u.id_unit)).to.deep.equal([Number(portalItemId)]);
  });

  it('when the worker died after Kaufland answered POST /units and the seller deletes the listing before GET /units shows the unit, then the unit is deleted (the delete found nothing, counted the listing ended, and the unit stayed on sale at Kaufland)', async () => {
    const { seller, portalAccountId, stockId, target, item, units } = await asWorker('KU-LAG-6');
    // The worker that died: Kaufland made the unit and answered; portal_listing names none.
    await new MarketEAdapter().list(target, item, 'died');
    forgetKauflandUnits();
    const upload = await call(`stock/${stockId}/portal_upload/`, {
      token: seller.token,
      body: { portal_upload: { market_e: [{ action: 'delete', portal_account_id: portalAccountId }] } },
    });
    expect(upload.status, upload.text).to.equal(207);
    const ended = await jobEnd(seller.token, (upload.body.response as { job_id: string }[])[0]!.job_id);
    expect(ended.state, ended.error).to.equal('completed');
    expect(units()).to.deep.equal([]);
  });

  it('when POST /units got no answer in time and the seller deletes the listing, then the delete waits (retryable) until GET /units would show a unit made, and then deletes it', async () => {
    const { stockId, target, item, units } = await asWorker('KU-LAG-7');
    const adapter = new MarketEAdapter();
    const original = config();
    setConfig({ ...original, portalTimeoutMs: 300 });
    sandbox.state.delays.set('market_e POST /v2/units', 900);
    try {
      await adapter.list(target, item, 'lost').catch(() => undefined);
    } finally {
      setConfig(original);
      sandbox.state.delays.delete('market_e POST /v2/units');
    }
    await waitFor('the unit Kaufland made', () => units().length === 1, 5000);
    forgetKauflandUnits();
    const held = await adapter.end(target, stockId, null, 'end', item).catch((err: unknown) => err);
    expect(held).to.be.instanceOf(DomainError).and.deep.include({ id: 'portal_unavailable' });
    expect((held as DomainError).retryAfterSeconds).to.be.greaterThan(500);
    expect(units()).to.have.length(1);
    units()[0]!.listed_from = 0;
    await adapter.end(target, stockId, null, 'end-2', item);
    expect(units()).to.deep.equal([]);
  });

  it('when POST /units got no answer in time while Kaufland made the unit, then the retry waits (retryable, Retry-After) instead of creating again, and updates the unit once GET /units shows it', async () => {
    const { target, item, units } = await asWorker('KU-LAG-5');
    const adapter = new MarketEAdapter();
    const original = config();
    setConfig({ ...original, portalTimeoutMs: 300 });
    sandbox.state.delays.set('market_e POST /v2/units', 900);
    try {
      const lost = await adapter.list(target, item, 'lost').catch((err: unknown) => err);
      expect(lost).to.be.instanceOf(DomainError).and.deep.include({ id: 'portal_unavailable' });
    } finally {
      setConfig(original);
      sandbox.state.delays.delete('market_e POST /v2/units');
    }
    await waitFor('the unit Kaufland made', () => units().length === 1, 5000);
    forgetKauflandUnits();
    const held = await adapter.list(target, item, 'retry').catch((err: unknown) => err);
    expect(held).to.be.instanceOf(DomainError).and.deep.include({ id: 'portal_unavailable' });
    expect((held as DomainError).message).to.match(/waits for it rather than create a second unit/);
    expect((held as DomainError).retryAfterSeconds).to.be.greaterThan(500);
    expect(units()).to.have.length(1);
    // Kaufland's listing delay has passed: GET /units shows the unit.
    units()[0]!.listed_from = 0;
    const listed = await adapter.list(target, item, 'retry-2');
    expect(units().map((u) => u.id_unit)).to.deep.equal([Number(listed.portalItemId)]);
  });
});
