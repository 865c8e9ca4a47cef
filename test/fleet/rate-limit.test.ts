import { expect } from 'chai';
import { waitForPortalSlot } from '../../lib/portals/portal-rate-limit';
import './support';

describe('fleet: portal rate limit', () => {
  it('when a burst of calls goes to one portal account, then they are spread at the configured rate; another account is not held up', async () => {
    const account = Math.floor(Math.random() * 1e9);
    const waits = await Promise.all([0, 1, 2, 3, 4].map(() => waitForPortalSlot('shop_g', account, 10)));
    const sorted = [...waits].sort((a, b) => a - b);
    // Slots 100 ms apart: the fifth call waits about 400 ms, none is refused.
    expect(sorted[0]).to.be.below(20);
    expect(sorted[4]).to.be.within(330, 420);
    for (let i = 1; i < 5; i++) expect(sorted[i]! - sorted[i - 1]!).to.be.within(70, 130);
    expect(await waitForPortalSlot('shop_g', account + 1, 10)).to.be.below(20);
    expect(await waitForPortalSlot('market_e', account, 10)).to.be.below(20);
  });
});
