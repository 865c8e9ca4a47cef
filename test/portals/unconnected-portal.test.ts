/**
 * A portal account without a base URL is not connected. Outside production its calls go to the
 * sandbox (SANDBOX_PORTAL_URL); in production they are refused as not connected, never sent to a
 * default host, unless the operator sets SANDBOX_PORTAL_URL on purpose (config unconnectedPortalUrl).
 */
import { expect } from 'chai';
import { config, loadConfig, setConfig } from '../../config';
import { db } from '../../lib/db';
import { portalTargetRepository } from '../../lib/portal-account';
import { adapterFor } from '../../lib/portals';
import { newSeller } from '../support/api';

const production = { NODE_ENV: 'production', CREDENTIALS_KEY: Buffer.alloc(32, 7).toString('base64') };

describe('a portal account that is not connected', () => {
  it('when the service runs in production without SANDBOX_PORTAL_URL, then such a portal account has no host to call; in development it is the sandbox, and a URL set on purpose is kept', () => {
    expect(loadConfig(production).unconnectedPortalUrl).to.equal(null);
    expect(loadConfig({ ...production, SANDBOX_PORTAL_URL: 'http://10.0.0.5:3900' }).unconnectedPortalUrl).to.equal('http://10.0.0.5:3900');
    expect(loadConfig({ NODE_ENV: 'development' }).unconnectedPortalUrl).to.equal('http://127.0.0.1:3900');
    expect(loadConfig({ NODE_ENV: 'test' }).unconnectedPortalUrl).to.equal('http://127.0.0.1:3900');
  });

  it("when a quantity push is made for it in production, then market_c's call is refused as not connected, and nothing is sent", async () => {
    const seller = await newSeller();
    const original = config();
    setConfig({ ...original, unconnectedPortalUrl: null });
    try {
      portalTargetRepository.forget(seller.id, seller.portalAccountId);
      const target = (await portalTargetRepository.target(db(), seller.id, seller.portalAccountId))!;
      expect(target.baseUrl).to.equal('');
      const pushed = adapterFor('market_c').setQuantities(target, [{ stockId: 1, quantity: 2, key: 'k', sku: 'S1', group: {} }], 'k');
      const err = (await pushed.then(
        () => undefined,
        (e: unknown) => e,
      )) as { id?: string; message: string } | undefined;
      expect(err?.id).to.equal('portal_refused');
      expect(err?.message).to.equal(`market_c: portal account ${seller.portalAccountId} is not connected: it has no base URL to call`);
    } finally {
      setConfig(original);
      portalTargetRepository.forget(seller.id, seller.portalAccountId);
    }
  });
});
