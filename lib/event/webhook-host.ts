import dns from 'node:dns/promises';
import net from 'node:net';
import { config } from '../../config';

/** Loopback, private, link-local, CGNAT and unspecified ranges: a seller's webhook must not reach the service's own network. */
const blocked = new net.BlockList();
for (const [address, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
] as const) {
  blocked.addSubnet(address, prefix, 'ipv4');
}
for (const [address, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
] as const)
  blocked.addSubnet(address, prefix, 'ipv6');

/** Whether an IP address is in a blocked range (IPv4-mapped IPv6 addresses count as IPv4). */
export function isPrivateAddress(ip: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return blocked.check(mapped[1]!, 'ipv4');
  return net.isIPv4(ip) ? blocked.check(ip, 'ipv4') : net.isIPv6(ip) ? blocked.check(ip, 'ipv6') : false;
}

const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');

/** A host a handler definition may never name (literal private address or localhost), unless allowed by config. */
export function isForbiddenHostLiteral(url: URL): boolean {
  if (config().webhookAllowPrivateHosts) return false;
  const host = hostOf(url).toLowerCase();
  return host === 'localhost' || host.endsWith('.localhost') || isPrivateAddress(host);
}

/** A delivery the policy forbids (a private or loopback address): never sent, not retried. */
export class BlockedHostError extends Error {}

/**
 * Resolves the host at delivery time (a name can point anywhere later): BlockedHostError when
 * any address is private; a resolver error (ENOTFOUND, EAI_AGAIN) is thrown as it is, a
 * failure worth retrying.
 */
export async function assertPublicHost(url: URL): Promise<void> {
  if (config().webhookAllowPrivateHosts) return;
  if (isForbiddenHostLiteral(url)) throw new BlockedHostError(`${url.host} is a private or loopback address`);
  const host = hostOf(url);
  if (net.isIP(host)) return;
  const addresses = await dns.lookup(host, { all: true });
  const bad = addresses.find((a) => isPrivateAddress(a.address));
  if (bad) throw new BlockedHostError(`${url.host} resolves to the private address ${bad.address}`);
}
