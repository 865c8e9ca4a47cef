/**
 * Issue 31, must deliver 3 (findings 1 and 3): a seller's webhook reaches only global unicast
 * addresses, and the address checked is the address connected to. With the production policy
 * (private hosts not allowed): every special-use form is refused at creation when written as a
 * literal, and at delivery when a name resolves to it, the delivery log showing a refusal
 * (blocked_host, no status), not an answer code or a timing; a resolver that answers a public
 * address first and 127.0.0.1 second is asked once, and nothing reaches 127.0.0.1.
 */
import crypto from 'node:crypto';
import type { LookupAddress } from 'node:dns';
import { expect } from 'chai';
import { Config, config, setConfig } from '../../config';
import { isGlobalUnicast, setResolver } from '../../lib/event/webhook-host';
import { closeMailer } from '../../lib/mail/mailer';
import { closeQueues } from '../../lib/queue/queue.registry';
import { call, newSeller, Seller } from '../support/api';
import { EventsWorker, startEventsWorker } from '../event/events-worker';
import { Receiver, startReceiver, waitFor } from '../event/servers';

/** Every special-use form the review found open or the issue lists, as the address a name resolves to. */
const refusedAddresses: [string, string][] = [
  ['loopback', '127.0.0.1'],
  ['loopback 127/8', '127.1.2.3'],
  ['this network 0/8', '0.0.0.0'],
  ['private 10/8', '10.1.2.3'],
  ['private 172.16/12', '172.20.0.1'],
  ['private 192.168/16', '192.168.1.20'],
  ['link-local (cloud metadata)', '169.254.169.254'],
  ['CGNAT 100.64/10', '100.64.0.1'],
  ['benchmarking 198.18/15', '198.19.1.1'],
  ['reserved 240/4', '240.0.0.1'],
  ['multicast', '224.0.0.1'],
  ['broadcast', '255.255.255.255'],
  ['documentation 192.0.2/24', '192.0.2.10'],
  ['documentation 198.51.100/24', '198.51.100.10'],
  ['documentation 203.0.113/24', '203.0.113.10'],
  ['IPv6 loopback', '::1'],
  ['IPv6 unspecified', '::'],
  ['IPv6 unique local', 'fd00::1'],
  ['IPv6 link-local', 'fe80::1'],
  ['IPv6 multicast', 'ff02::1'],
  ['IPv4-mapped', '::ffff:127.0.0.1'],
  ['IPv4-mapped, hex', '::ffff:7f00:1'],
  ['IPv4-compatible', '::127.0.0.1'],
  ['NAT64 64:ff9b::/96', '64:ff9b::7f00:1'],
  ['NAT64 local-use 64:ff9b:1::/48', '64:ff9b:1::a00:1'],
  ['6to4 2002::/16', '2002:7f00:1::1'],
  ['Teredo 2001::/32', '2001:0:4136:e378:8000:63bf:3fff:fdd2'],
  ['IPv6 documentation', '2001:db8::1'],
];

/** Literal hosts as a seller writes them in a URL: decimal, octal, hex and bracketed forms included. */
const refusedLiterals = [
  'http://127.0.0.1/',
  'http://localhost:8080/',
  'http://shop.localhost/',
  'http://[::1]/',
  'http://0.0.0.0/',
  'http://2130706433/',
  'http://0177.0.0.1/',
  'http://0x7f.0.0.1/',
  'http://0x7f000001/',
  'http://127.1/',
  'http://[::ffff:127.0.0.1]/',
  'http://[::127.0.0.1]/',
  'http://[64:ff9b::127.0.0.1]/',
  'http://[2002:7f00:1::1]/',
  'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/',
  'http://198.18.0.1/',
  'http://240.0.0.1/',
  'http://224.0.0.1/',
  'http://169.254.169.254/latest/meta-data/',
  'http://100.100.100.200/',
];

interface LoggedAttempt {
  status: number | null;
  error: string;
  outcome: string;
  description: string;
}

const handlerBody = (url: string) => ({
  event_handler: { type: { id: 'created' }, section: 'order', action: { id: 'notification', required: { url, format: 'post', target_name: 'erp' } } },
});

async function createHandler(seller: Seller, url: string): Promise<number> {
  const res = await call('admin/event/handler/', { token: seller.token, body: handlerBody(url) });
  expect(res.status, res.text).to.equal(201);
  return res.body.event_handler_id as number;
}

async function createOrder(seller: Seller): Promise<void> {
  const res = await call('order/', { token: seller.token, body: { order: { customer: { email: 'buyer@example.com' } } } });
  expect(res.status, res.text).to.equal(201);
}

async function firstAttempt(seller: Seller, handlerId: number): Promise<{ state: string; attempt: LoggedAttempt[] }> {
  return waitFor(async () => {
    const res = await call(`admin/event/handler/${handlerId}/delivery/`, { token: seller.token });
    const [first] = res.body.delivery as { state: string; attempt: LoggedAttempt[] }[];
    return first && first.attempt.length > 0 ? first : undefined;
  }, `the first attempt of handler ${handlerId}`);
}

describe('outbound calls that cannot reach inside (issue 31)', function () {
  this.timeout(60000);

  describe('the address classification', () => {
    for (const [what, address] of refusedAddresses) {
      it(`when an address is ${what} (${address}), then it is not global unicast`, () => {
        expect(isGlobalUnicast(address)).to.equal(false);
      });
    }
    it('when an address is public, then it is global unicast', () => {
      for (const address of ['93.184.215.14', '8.8.8.8', '2606:2800:21f:cb07:6820:80da:af6b:8b2c', '2a00:1450:4001:82a::200e'])
        expect(isGlobalUnicast(address), address).to.equal(true);
    });
  });

  describe('with the production policy', () => {
    let original: Config;
    let events: EventsWorker;
    let receiver: Receiver;
    /** What the injected resolver answers per name, in order (the last repeats), and how often it was asked. */
    const answers = new Map<string, string[][]>();
    const asked = new Map<string, number>();

    before(async () => {
      original = config();
      await closeQueues();
      receiver = await startReceiver(() => ({ status: 204 }));
      setConfig({
        ...original,
        queuePrefix: `test-ssrf-${crypto.randomBytes(4).toString('hex')}`,
        webhookAllowPrivateHosts: false,
        webhookTimeoutMs: 1000,
        webhookRetryBaseMs: 60000,
        webhookRetryMaxDelayMs: 60000,
      });
      setResolver(async (host): Promise<LookupAddress[]> => {
        const n = asked.get(host) ?? 0;
        asked.set(host, n + 1);
        const list = answers.get(host);
        if (!list) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
        return list[Math.min(n, list.length - 1)]!.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
      });
      events = await startEventsWorker();
    });

    after(async () => {
      setResolver();
      await events?.stop();
      await closeQueues();
      closeMailer();
      setConfig(original);
      await receiver.close();
    });

    it('when a handler names a private or special-use literal host, then 400 names the url and nothing is stored', async () => {
      const seller = await newSeller();
      for (const url of refusedLiterals) {
        const res = await call('admin/event/handler/', { token: seller.token, body: handlerBody(url) });
        expect(res.status, `${url}: ${res.text}`).to.equal(400);
        expect(res.body.error![0]!.field, url).to.equal('event_handler.action.required.url');
      }
      expect((await call('admin/event/handler/', { token: seller.token })).body.event_handler).to.deep.equal([]);
    });

    it('when a name resolves to any special-use address, then the delivery log shows a refusal, no answer code, and no request was made', async () => {
      const seller = await newSeller();
      const handlers: [string, string, number][] = [];
      for (const [what, address] of refusedAddresses) {
        const name = `h${handlers.length}-${seller.id}.hooks.example`;
        // A public address beside the private one: one bad address refuses the name.
        answers.set(name, [['93.184.215.14', address]]);
        handlers.push([what, address, await createHandler(seller, `http://${name}:${new URL(receiver.base).port}/hook`)]);
      }
      await createOrder(seller);
      for (const [what, address, id] of handlers) {
        const delivery = await firstAttempt(seller, id);
        expect(delivery.state, what).to.equal('failed');
        expect(delivery.attempt[0], what).to.deep.include({ status: null, error: 'blocked_host', outcome: 'failed' });
        expect(delivery.attempt[0]!.description, what).to.contain(address.split('%')[0]);
      }
      expect(receiver.received).to.deep.equal([]);
    });

    it('when a literal special-use host was stored before (allowed then), then its delivery is refused in the log without a request', async () => {
      const seller = await newSeller();
      const ids: [string, number][] = [];
      setConfig({ ...config(), webhookAllowPrivateHosts: true });
      try {
        for (const url of [
          'http://127.0.0.1:9/',
          'http://2130706433:9/',
          'http://0x7f.0.0.1:9/',
          'http://[::ffff:127.0.0.1]:9/',
          'http://[64:ff9b::7f00:1]:9/',
        ])
          ids.push([url, await createHandler(seller, url)]);
      } finally {
        setConfig({ ...config(), webhookAllowPrivateHosts: false });
      }
      await createOrder(seller);
      for (const [url, id] of ids) {
        const delivery = await firstAttempt(seller, id);
        expect(delivery.attempt[0], url).to.deep.include({ status: null, error: 'blocked_host', outcome: 'failed' });
      }
    });

    it('when the resolver answers a public address first and 127.0.0.1 second (DNS rebinding), then it is asked once per attempt and nothing reaches 127.0.0.1', async () => {
      const seller = await newSeller();
      const name = `rebind-${seller.id}.hooks.example`;
      answers.set(name, [['93.184.215.14'], ['127.0.0.1']]);
      const id = await createHandler(seller, `http://${name}:${new URL(receiver.base).port}/rebind`);
      await createOrder(seller);
      const delivery = await firstAttempt(seller, id);
      // The one answer was the public address: the attempt went there (this machine reaches no outside network).
      expect(asked.get(name)).to.equal(1);
      expect(delivery.attempt[0]!.error).to.not.equal('blocked_host');
      expect(delivery.attempt[0]!.outcome).to.equal('retry');
      expect(receiver.received.filter((r) => r.path === '/rebind')).to.deep.equal([]);
    });
  });
});
