/** The sandbox portal on a free loopback port for the enclosing describe block. */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { createSandbox, SandboxState } from '../../sandbox/sandbox.app';

export interface SuiteSandbox {
  url: string;
  state: SandboxState;
}

/**
 * Starts the sandbox before the block's tests and stops it after them; `started` receives its URL
 * and state. With `contractOf`, every test ends by asserting that the sandbox recorded no
 * violation of that vendor's published contracts (sandbox/contract/).
 */
export function sandboxForSuite(started: (sandbox: SuiteSandbox) => void, contractOf?: 'ebay' | 'amazon'): void {
  let server: Server | undefined;
  let url = '';
  before(async () => {
    const sandbox = createSandbox();
    const listening = sandbox.app.listen(0, '127.0.0.1');
    server = listening;
    await new Promise((resolve) => listening.once('listening', resolve));
    url = `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;
    started({ url, state: sandbox.state });
  });
  after(() => {
    server?.closeAllConnections();
    server?.close();
  });
  if (contractOf) {
    afterEach(async () => {
      expect(await (await fetch(`${url}/_sandbox/violations?vendor=${contractOf}`)).json()).to.deep.equal([]);
    });
  }
}
