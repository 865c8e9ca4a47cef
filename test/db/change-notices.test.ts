/**
 * The listener of lib/db's change notices as a short-lived process meets it: a CLI command that
 * reads through the caches and ends at once closes the listener while it is still connecting.
 */
import { expect } from 'chai';
import { changesSettled, listening, stopChangeNotices } from '../../lib/db/change-notices';
import { capturedLog } from '../security/log-capture';

describe('change notices (lib/db)', () => {
  it('when the listener is stopped while it still connects (a CLI command ending), then no warning is logged, and the next use listens again', async () => {
    await stopChangeNotices();
    const { lines } = await capturedLog(async () => {
      // The moment a command ends falls anywhere in the listener's start: before, during and after connecting.
      for (let ms = 0; ms < 12; ms++) {
        listening();
        await new Promise((resolve) => setTimeout(resolve, ms));
        await stopChangeNotices();
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
    });
    expect(lines.map((l) => l.msg)).to.deep.equal([]);
    listening();
    await changesSettled();
    expect(listening()).to.equal(true);
  });
});
