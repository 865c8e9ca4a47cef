/**
 * Hostile input for the fuzz test: a small seeded PRNG (mulberry32, so a failing run is
 * repeated with FUZZ_SEED) and generators of the strings, values, bodies, queries and path ids
 * a careless or malicious client sends. Shapes follow the endpoint's schema often enough to get
 * past the first field check, and break it often enough to reach every refusal.
 */
import iconv from 'iconv-lite';
import qs from 'qs';
import type { Description } from '../../lib/http/describe';

export class Prng {
  /** Values a request may still hold, so one request stays a few MB at most. */
  budget = 0;

  constructor(private state: number) {}

  /** Takes n from the budget; false when it is spent. */
  spend(n: number): boolean {
    if (this.budget < n) return false;
    this.budget -= n;
    return true;
  }

  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  int(max: number): number {
    return Math.floor(this.next() * max);
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(list: readonly T[]): T {
    return list[this.int(list.length)]!;
  }
}

const strings = [
  '',
  ' ',
  'a\u0000b',
  '\u0000',
  '\ud800',
  'x\udc00',
  '\ud83d\ude00 emoji',
  '\u202Eabc\u202C',
  'שלום עולם',
  'Köln € ß',
  '%',
  '_',
  '*',
  '\\*',
  "'; drop table stock; --",
  '"quoted"',
  '<tag>&amp;</tag>',
  '${x}',
  '{{#label}}',
  '\r\n',
  '\t',
  '0',
  '-1',
  '1e400',
  'NaN',
  'Infinity',
  '-0',
  '2147483648',
  '-2147483649',
  '99999999999999999999',
  '0012345678905',
  'true',
  'null',
  'default',
  '2026-02-30',
  '2026-13-01',
  '0000-00-00',
  '2026-01-01T25:61:00',
  '9999-12-31 23:59:59',
  'EUR',
  'DE',
  'auction_a',
  'main',
  'none',
  'https://example.com/x',
  'mailto:a@b',
  'a@example.com',
  '=',
  '!~',
  '~',
];

const numbers = [0, -1, 1, 1.5, 2147483647, 2147483648, -2147483649, 1e308, -1e308, Number.MAX_SAFE_INTEGER, 1e15, 0.1];

export function hostileString(r: Prng): string {
  if (r.chance(0.03)) {
    const length = 1 + r.int(200_000);
    if (r.spend(length / 10)) return r.pick(['x', '\u0000', 'é', '\ud83d\ude00']).repeat(length);
  }
  if (r.chance(0.2)) return r.pick(strings) + r.pick(strings);
  return r.pick(strings);
}

export function hostileScalar(r: Prng): unknown {
  const roll = r.int(10);
  if (roll < 6) return hostileString(r);
  if (roll < 8) return r.pick(numbers);
  return r.pick([null, true, false]);
}

/** Nested objects or lists, sometimes far beyond any bound. */
export function hostileNesting(r: Prng): unknown {
  const depth = r.pick([2, 10, 31, 33, 100, 1_000, 5_000]);
  if (!r.spend(depth)) return hostileScalar(r);
  let value: unknown = hostileScalar(r);
  for (let i = 0; i < depth; i++) value = r.chance(0.5) ? [value] : { [r.pick(['a', 'n', 'x', '__proto__', 'constructor'])]: value };
  return value;
}

export function hostileValue(r: Prng, depth = 0): unknown {
  const roll = r.int(20);
  if (roll < 13 || depth > 3 || !r.spend(1)) return hostileScalar(r);
  if (roll < 15) {
    const length = r.pick([0, 1, 3, 201, 1_001, 20_000]);
    return r.spend(length) ? Array.from({ length }, () => (r.chance(0.5) ? hostileScalar(r) : {})) : [];
  }
  if (roll < 16) return hostileNesting(r);
  return Object.fromEntries(Array.from({ length: r.int(4) }, () => [r.pick(['id', 'name', 'value', 'x', 'prototype']), hostileValue(r, depth + 1)]));
}

/** A value shaped like the schema described, with hostile leaves and keys. */
export function shapedValue(r: Prng, description: Description | undefined, depth = 0): unknown {
  if (!description || depth > 6 || r.chance(0.1) || !r.spend(1)) return hostileValue(r, depth);
  if (description.keys) {
    const keys = Object.keys(description.keys);
    const out: Record<string, unknown> = {};
    for (let i = 0, n = 1 + r.int(Math.min(keys.length, 6)); i < n; i++) {
      const key = r.pick(keys);
      out[key] = shapedValue(r, description.keys[key], depth + 1);
    }
    if (r.chance(0.05)) out[r.pick(['__proto__', 'constructor', 'prototype', 'unknown', 'a\u0000b'])] = hostileScalar(r);
    return out;
  }
  if (description.type === 'array' || description.items) {
    const item = description.items?.[0];
    const length = r.pick([0, 1, 2, 3, 201]);
    return Array.from({ length: r.spend(length) ? length : 1 }, () => shapedValue(r, item, depth + 1));
  }
  if (description.type === 'alternatives') return hostileValue(r, depth);
  return r.chance(0.7) ? hostileScalar(r) : hostileValue(r, depth);
}

function toXml(value: unknown, r: Prng, depth = 0): string {
  if (depth > 60) return '';
  if (Array.isArray(value)) return value.map((v) => toXml(v, r, depth + 1)).join('');
  if (value !== null && typeof value === 'object') {
    return Object.entries(value)
      .map(([k, v]) => {
        const name = /^[A-Za-z_][\w.-]*$/.test(k) ? k : 'bad';
        return Array.isArray(v) ? v.map((item) => `<${name}>${toXml(item, r, depth + 1)}</${name}>`).join('') : `<${name}>${toXml(v, r, depth + 1)}</${name}>`;
      })
      .join('');
  }
  const text = String(value).replace(/&/g, '&amp;').replace(/</g, '&lt;');
  return r.chance(0.1) ? `<![CDATA[${String(value)}]]>` : r.chance(0.1) ? `${text}&#228;&#x20AC;&#0;&bogus;` : text;
}

const xmlWrecks = [
  (x: string) => `<!DOCTYPE r [<!ENTITY a "aaaa">]>${x}`,
  (x: string) => x.slice(0, Math.floor(x.length / 2)),
  (x: string) => x.replace('</request>', ''),
  (x: string) => `${x}<request/>`,
  (_x: string) => `<request>${'<a>'.repeat(150)}x${'</a>'.repeat(150)}</request>`,
  (_x: string) => `<request>${'<a>1</a>'.repeat(25_000)}</request>`,
  (x: string) => x.replace('<request>', '<request><__proto__>1</__proto__>'),
  (x: string) => x,
];

export interface Body {
  headers: Record<string, string>;
  bytes: Buffer | string | undefined;
}

const contentTypes = [
  'application/json',
  'application/json encoding=utf-8',
  'application/json; charset=iso-8859-15',
  'application/json; charset=utf-16',
  'application/json; charset=bogus',
  'text/plain',
  'application/xml',
  'text/xml; charset=ISO-8859-15',
  'application/x-www-form-urlencoded',
  '',
];

/** A request body in a random media type and charset, from a value. */
export function hostileBody(r: Prng, value: unknown): Body {
  const type = r.pick(contentTypes);
  const headers: Record<string, string> = type ? { 'Content-Type': type } : {};
  let text: string;
  if (type.includes('xml')) text = r.pick(xmlWrecks)(`<?xml version="1.0"?><request>${toXml(value, r)}</request>`);
  else if (type.includes('form')) text = safeForm(value, r);
  else text = safeJson(value, r);
  if (r.chance(0.05))
    return {
      headers,
      bytes: Buffer.from(
        r.pick([
          [0xff, 0xfe, 0x00],
          [0xc3, 0x28],
          [0xed, 0xa0, 0x80],
          [0x7b, 0x00, 0x7d],
        ]),
      ),
    };
  return { headers, bytes: type.includes('8859-15') ? iconv.encode(text, 'iso-8859-15') : text };
}

function safeForm(value: unknown, r: Prng): string {
  try {
    return qs.stringify(value, { arrayFormat: r.pick(['indices', 'brackets', 'repeat'] as const) });
  } catch {
    return `a${'[b]'.repeat(5_000)}=1`;
  }
}

function safeJson(value: unknown, r: Prng): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? 'null';
  } catch {
    text = `{"deep":${'['.repeat(20_000)}${']'.repeat(20_000)}}`;
  }
  return r.chance(0.05) ? text.slice(0, Math.floor(text.length / 2)) : text;
}

/** Bracket query parameters: filters by the endpoint's own names, pagination, select and junk. */
export function hostileQuery(r: Prng, filterNames: string[], selectNames: string[]): string {
  const parts: string[] = [];
  const enc = (s: unknown) => encodeURIComponent(typeof s === 'string' ? s.replace(/[\ud800-\udfff]/g, '') : String(s));
  for (let i = 0, n = r.int(4); i < n; i++) {
    const roll = r.int(8);
    const field = filterNames.length && r.chance(0.8) ? r.pick(filterNames) : r.pick(['id', 'nope', 'a.b.c']);
    const key = field
      .split('.')
      .map((p) => `[${p}]`)
      .join('');
    const group = r.chance(0.3) ? `[${r.pick([0, 1, 5, 200, 99999])}]` : '';
    if (roll < 3) parts.push(`filter${group}${key}=${enc(hostileScalar(r))}`);
    else if (roll < 4)
      parts.push(
        `filter${group}${key}[operator]=${enc(r.pick(['=', '!=', '<', '~', '!~', '>=', 'like', '']))}&filter${group}${key}[value][]=${enc(hostileScalar(r))}`,
      );
    else if (roll < 5) parts.push(`pagination[${r.pick(['limit', 'page', 'min_id', 'x'])}]=${enc(hostileScalar(r))}`);
    else if (roll < 6) parts.push(`select${r.chance(0.5) ? '[]' : ''}=${enc(selectNames.length && r.chance(0.6) ? r.pick(selectNames) : hostileScalar(r))}`);
    else if (roll < 7) parts.push(`${'a'}${'[b]'.repeat(r.pick([1, 12, 40]))}=1`);
    else parts.push(`${r.pick(['portal_account_id', 'x', '__proto__[x]', 'filter', 'constructor[prototype]'])}=${enc(hostileScalar(r))}`);
  }
  return parts.join('&');
}

export function hostileId(r: Prng, real: string[]): string {
  const ids = [
    '0',
    '-1',
    '1',
    '2147483647',
    '2147483648',
    '99999999999999999999',
    '1e5',
    '0x10',
    'EAN_0012345678905',
    'SKU_a%00b',
    'MKTDSKU_1',
    'SKU_',
    '%00',
    'a%ED%A0%80',
    '..',
    '%2e%2e',
    '1_2026_02',
    '99999999999999999_2026_13',
    'default',
    'EUR',
    'de',
    'abc',
    ' 1',
  ];
  return real.length && r.chance(0.35) ? r.pick(real) : r.pick(ids);
}
