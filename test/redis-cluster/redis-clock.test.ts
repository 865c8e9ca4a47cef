import { expect } from 'chai';
import { config, setConfig } from '../../config';
import type { DomainError } from '../../lib/errors';
import { acquire } from '../../lib/http/rate-limit';
import { waitForPortalSlot } from '../../lib/portals/portal-rate-limit';

/** Runs `body` as a host whose clock is `offsetMs` off (Date.now is the host's clock). */
async function onHostWithSkew<T>(offsetMs: number, body: () => Promise<T>): Promise<T> {
  const realNow = Date.now;
  Date.now = () => realNow() + offsetMs;
  try {
    return await body();
  } finally {
    Date.now = realNow;
  }
}

describe('shared limits timed by Redis, not by each host (issue 34)', () => {
  const original = config();
  afterEach(() => setConfig(original));

  it('when a host whose clock is 700 ms behind and one 700 ms ahead ask for slots of one portal account, then their calls still keep the spacing', async () => {
    const account = Math.floor(Math.random() * 1e9);
    await onHostWithSkew(-700, () => waitForPortalSlot('shop_g', account, 5));
    const first = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 72));
    // With each host's own clock this call went out 128 ms after the first, inside the 200 ms spacing.
    await onHostWithSkew(700, () => waitForPortalSlot('shop_g', account, 5));
    expect(performance.now() - first).to.be.at.least(190);
  });

  it("when a host whose clock is an hour ahead takes calls of an account, then they count in the same window as another host's", async () => {
    setConfig({ ...config(), rateLimitPerWindow: 2, rateLimitWindowSeconds: 3600, rateLimitReliefDays: 0 });
    const account = 800000000 + Math.floor(Math.random() * 1e8);
    (await acquire(account, 10)).release();
    (await onHostWithSkew(3600_000, () => acquire(account, 10))).release();
    const refused = await acquire(account, 10).then(
      () => undefined,
      (err: DomainError) => err,
    );
    expect(refused?.id).to.equal('too_many_requests');
  });
});
