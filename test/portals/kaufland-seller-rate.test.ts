import { expect } from 'chai';
import { KauflandSession } from '../../lib/portals/kaufland/kaufland-client';
import type { PortalTarget } from '../../lib/portals/portal.type';
import { kauflandOf } from '../../sandbox/kaufland.sandbox';
import { Sandbox, sandboxKeepingContract } from '../fleet/support';

// ../shared/contracts/kaufland/SOURCES.md, "Rate limits": "111 requests per seller per second,
// counted across all endpoints". A seller selling in two storefronts connects one portal account
// per storefront with the same API keys: Kaufland counts both as one seller.
describe("market_e: the rate limit is Kaufland's per seller, shared by the portal accounts of one seller's keys", () => {
  let sandbox: Sandbox;
  sandboxKeepingContract('kaufland', (started) => (sandbox = started));

  it("two portal accounts (de and cz) calling at once with the same keys draw no 429: together they keep to the seller's pace", async () => {
    const seller = String(700000 + Math.floor(Math.random() * 100000));
    const credentials = (storefront: string) => ({ client_key: `sandbox-account-${seller}`, secret_key: `sandbox-secret-${seller}`, storefront });
    const de: PortalTarget = { portalAccountId: Number(seller) + 1, connector: 'kaufland', baseUrl: sandbox.url, credentials: credentials('de') };
    const cz: PortalTarget = { portalAccountId: Number(seller) + 2, connector: 'kaufland', baseUrl: sandbox.url, credentials: credentials('cz') };
    const throttledBefore = kauflandOf(sandbox.state).throttled;
    const burst = (target: PortalTarget) => {
      const session = new KauflandSession(target);
      return Promise.all(Array.from({ length: 70 }, () => session.call('GET', '/carriers')));
    };
    const answers = (await Promise.all([burst(de), burst(cz)])).flat();
    expect(answers.map((a) => a.status)).to.deep.equal(Array(140).fill(200));
    const seen = sandbox.state.requests.filter((r) => r.portal === 'market_e' && r.portalAccount === seller);
    expect(seen.map((r) => r.status).filter((s) => s === 429)).to.deep.equal([]);
    expect(seen).to.have.length(140);
    expect(kauflandOf(sandbox.state).throttled).to.equal(throttledBefore);
  });
});
