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

/** An eBay API call to the sandbox as the seller of portal account `id` (its test bearer token). */
export function ebayCallTo(url: () => string) {
  return async (id: number, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${url()}${path}`, {
      method,
      headers: {
        Authorization: `Bearer sandbox-account-${id}`,
        'Content-Language': 'de-DE',
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> & { errors?: { errorId: number; message?: string }[] } };
  };
}
