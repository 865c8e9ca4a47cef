/**
 * The request line (server/framework/context.ts): one per request, naming the path the client
 * requested, mount prefix and all (authorize.php was logged as "/", the operator's metrics as
 * "/metrics"), never its query (it may carry codes or tokens), cut at 200 characters.
 */
import { expect } from 'chai';
import { apiBase } from '../support/api';
import { capturedLog } from '../security/log-capture';

describe('the request line names the path requested', () => {
  const requested = async (paths: string[]) => {
    const base = await apiBase();
    const { lines } = await capturedLog(async () => {
      for (const p of paths) await (await fetch(`${base}${p}`)).text();
      // The line is written when the answer has gone: give the last one its turn.
      await new Promise((resolve) => setTimeout(resolve, 200));
    });
    // The suite's contract check reads openapi.json on its first exchange (test/support/contract.ts): not one of these.
    return lines.filter((l) => l.msg === 'request' && !String(l.path).endsWith('/openapi.json')).map((l) => l.path);
  };

  it('when pages outside the API and the API are requested, then each line holds the path as requested, under its mount point', async () => {
    const paths = ['/v1.1/authorize.php', '/operator/metrics', '/health/ready', '/connect/ebay/accepted', '/v1.1/stock/', '/v1.1/system/currency/'];
    expect(await requested(paths)).to.deep.equal(paths);
  });

  it('when a path carries a query, then the line holds the path without it; a long path is cut at 200 characters', async () => {
    const long = `/v1.1/stock/${'x'.repeat(300)}/`;
    const logged = await requested([
      '/v1.1/authorize.php?response_type=code&client_id=c&state=secret-state',
      '/connect/ebay/accepted?code=secret-code&state=s',
      `${long}?access_token=secret-token`,
    ]);
    expect(logged).to.deep.equal(['/v1.1/authorize.php', '/connect/ebay/accepted', `${long.slice(0, 200)}…`]);
  });
});
