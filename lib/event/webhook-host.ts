/**
 * The outbound guard of seller-given URLs (webhooks): only global unicast addresses are reached,
 * and the address checked is the address connected to. A name is resolved once per attempt
 * (targetOf): every address it gives is checked, and the request connects to the first of those
 * very addresses by IP (the name goes as Host and as the TLS server name), so a resolver that
 * answers a public address to a check and a private one to the connection (DNS rebinding) is
 * never asked a second question. An IP literal is checked as it is.
 */
import dns from 'node:dns/promises';
import type { LookupAddress } from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import { config } from '../../config';

/** A delivery the policy forbids (an address that is not global unicast): never sent, not retried. */
export class BlockedHostError extends Error {
  readonly code = 'KONTOR_BLOCKED_HOST';
}

/** IPv6 global unicast is 2000::/3 (RFC 4291 2.4); ipaddr.js names the special ranges inside it. */
const globalUnicastV6 = ipaddr.parseCIDR('2000::/3');

/**
 * Whether an address may be connected to: global unicast only. IPv4: every range ipaddr.js
 * names is refused (0/8, 10/8, 100.64/10, 127/8, 169.254/16, 172.16/12, 192.0.0/24, the
 * documentation ranges, 192.168/16, 198.18/15, 224/4 multicast, 240/4, broadcast ...). IPv6:
 * only 2000::/3 and there nothing ipaddr.js names: so ::1, ::, ULA fc00::/7, link-local, multicast,
 * IPv4-mapped ::ffff:a.b.c.d and -compatible ::a.b.c.d (outside 2000::/3), NAT64 64:ff9b::/96 and
 * 64:ff9b:1::/48, 6to4 2002::/16, Teredo 2001::/32 (and 2001::/23), 2001:db8::/32, 3fff::/20 are refused.
 */
export function isGlobalUnicast(ip: string): boolean {
  if (!net.isIP(ip)) return false;
  const address = ipaddr.parse(ip);
  if (address.kind() === 'ipv4') return address.range() === 'unicast';
  const v6 = address as ipaddr.IPv6;
  return v6.match(globalUnicastV6) && v6.range() === 'unicast';
}

/** The host of a URL without IPv6 brackets; the WHATWG parser already wrote 2130706433, 0x7f.1 and 0177.0.0.1 as 127.0.0.1. */
export const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');

const localName = (host: string) => {
  const name = host.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
};

/** A host a handler definition may never name (localhost or an IP literal outside global unicast), unless allowed by config. */
export function isForbiddenHostLiteral(url: URL): boolean {
  if (config().webhookAllowPrivateHosts) return false;
  const host = hostOf(url);
  return localName(host) || (net.isIP(host) !== 0 && !isGlobalUnicast(host));
}

/** How names are resolved: every address of the name, in the resolver's order. Tests inject their own. */
export type Resolve = (host: string) => Promise<LookupAddress[]>;

const systemResolve: Resolve = (host) => dns.lookup(host, { all: true, verbatim: true });
let resolve: Resolve = systemResolve;

/** Replaces the resolver (tests: a name that answers differently on each question); none restores the system's. */
export function setResolver(next?: Resolve): void {
  resolve = next ?? systemResolve;
}

/** The addresses a connection to host may use: all of them checked; BlockedHostError when any is not global unicast. */
export async function checkedAddresses(host: string): Promise<LookupAddress[]> {
  if (!config().webhookAllowPrivateHosts && localName(host)) throw new BlockedHostError(`${host} is a local name`);
  const addresses = await resolve(host);
  if (addresses.length === 0) throw Object.assign(new Error(`${host} has no address`), { code: 'ENOTFOUND' });
  if (!config().webhookAllowPrivateHosts) {
    const bad = addresses.find((a) => !isGlobalUnicast(a.address));
    if (bad) throw new BlockedHostError(`${host} resolves to ${bad.address}, which is not a public (global unicast) address`);
  }
  return addresses;
}

/** Where a request to url connects: the checked address, and the name it stands for (Host, TLS server name). */
export interface PinnedTarget {
  address: string;
  name: string;
}

/** The one address a request to url may connect to; BlockedHostError when the host is not allowed. */
export async function targetOf(url: URL): Promise<PinnedTarget> {
  const host = hostOf(url);
  if (net.isIP(host)) {
    if (!config().webhookAllowPrivateHosts && !isGlobalUnicast(host)) throw new BlockedHostError(`${host} is not a public (global unicast) address`);
    return { address: host, name: host };
  }
  const [first] = await checkedAddresses(host);
  return { address: first!.address, name: host };
}
