import iconv from 'iconv-lite';

export type MediaFormat = 'json' | 'xml' | 'form';

export interface MediaType {
  format: MediaFormat | null;
  charset: string;
  /** Whether Content-Type named the charset (else `charset` is the default, UTF-8). */
  charsetGiven: boolean;
}

/**
 * Parses a Content-Type the way clients of this interface send it: parameters may follow a
 * semicolon or only a space (`application/json encoding=utf-8`), and the charset may be named
 * charset= or encoding=.
 */
export function parseContentType(header: string | undefined): MediaType {
  if (!header) return { format: null, charset: 'utf-8', charsetGiven: false };
  const [type = '', ...params] = header
    .trim()
    .toLowerCase()
    .split(/[;\s,]+/)
    .filter(Boolean);
  let charset: string | undefined;
  for (const param of params) {
    const [key, value] = param.split('=');
    if ((key === 'charset' || key === 'encoding') && value) charset = value.replace(/^"|"$/g, '');
  }
  return { format: formatOf(type), charset: charset ?? 'utf-8', charsetGiven: charset !== undefined };
}

function formatOf(type: string): MediaFormat | null {
  if (type === 'application/json' || type === 'text/json' || type.endsWith('+json')) return 'json';
  if (type === 'application/xml' || type === 'text/xml' || type.endsWith('+xml')) return 'xml';
  if (type === 'application/x-www-form-urlencoded') return 'form';
  return null;
}

/** The response format from Accept: XML only when the client prefers it, JSON otherwise. */
export function negotiateFormat(accept: string | undefined): 'json' | 'xml' {
  if (!accept) return 'json';
  let best: { format: 'json' | 'xml'; q: number } = { format: 'json', q: 0 };
  for (const part of accept.toLowerCase().split(',')) {
    const [type = '', ...params] = part.trim().split(/[;\s]+/);
    const q = Number(params.find((p) => p.startsWith('q='))?.slice(2) ?? 1);
    const format = formatOf(type);
    if ((format === 'json' || format === 'xml') && q > best.q) best = { format, q };
  }
  return best.format;
}

/**
 * The response charset from Accept-Charset (RFC 9110 12.5.2): the supported charset of the
 * highest weight, the first listed of equal weight; UTF-8 for `*`, and when nothing listed is
 * supported. A weight of 0 means "not this one".
 */
export function negotiateCharset(acceptCharset: string | undefined): string {
  if (!acceptCharset) return 'utf-8';
  let best: { name: string; q: number } = { name: 'utf-8', q: 0 };
  for (const part of acceptCharset.toLowerCase().split(',')) {
    const [rawName = '', ...params] = part.split(';').map((p) => p.trim());
    const weight = params.find((p) => p.startsWith('q='));
    const q = weight === undefined ? 1 : Number(weight.slice(2));
    const name = rawName === '*' ? 'utf-8' : rawName;
    if (!(q > best.q)) continue;
    if (name === 'utf-8' || isSupportedCharset(name)) best = { name, q };
  }
  return canonicalCharset[best.name] ?? best.name;
}

/**
 * The IANA preferred name an answer's Content-Type and XML declaration give for a charset asked
 * by an alias: `latin9`, `iso8859-15` and `cp1252` are no registered names, and an XML parser
 * may refuse an encoding declaration it does not know.
 */
const canonicalCharset: Record<string, string> = {
  utf8: 'utf-8',
  'iso8859-15': 'iso-8859-15',
  latin9: 'iso-8859-15',
  'iso8859-1': 'iso-8859-1',
  latin1: 'iso-8859-1',
  cp1252: 'windows-1252',
};

/** The charsets a body may be sent in and an answer asked for (Accept-Charset); others are refused or answered in UTF-8. */
export const charsets = new Set([
  'utf-8',
  'utf8',
  'iso-8859-15',
  'iso8859-15',
  'latin9',
  'iso-8859-1',
  'iso8859-1',
  'latin1',
  'windows-1252',
  'cp1252',
  'us-ascii',
]);

export function isSupportedCharset(name: string): boolean {
  return charsets.has(name) && iconv.encodingExists(name);
}

/**
 * The encoding an XML body declares (`<?xml version="1.0" encoding="ISO-8859-15"?>`), lower case,
 * read from its first bytes as ASCII; undefined without a declaration or without its encoding.
 */
export function xmlDeclaredEncoding(bytes: Buffer): string | undefined {
  const head = bytes.subarray(0, 200).toString('latin1');
  const match = /^(?:\uFEFF|\u00EF\u00BB\u00BF)?\s*<\?xml\s[^>]*?\bencoding\s*=\s*["']([A-Za-z][\w.:-]*)["']/.exec(head);
  return match?.[1]?.toLowerCase();
}

/**
 * UTF-16 by any of its names. Taken for XML bodies only: XML 1.0 4.3.3 has every XML processor
 * read UTF-16 as well as UTF-8, while JSON between systems is UTF-8 (RFC 8259 8.1).
 */
export const isUtf16 = (name: string): boolean => name === 'utf-16' || name === 'utf16' || name === 'utf-16le' || name === 'utf-16be';

/**
 * The UTF-16 an XML body's first bytes show (XML 1.0 Appendix F): its byte order mark, or without
 * one a `<` and an ASCII character each followed (LE) or preceded (BE) by a NUL. Appendix F names
 * `<?` alone; any ASCII second character is taken too (`<request>` undeclared), since no other
 * encoding we read has a NUL there. Undefined for an 8-bit start (UTF-8, ISO-8859-15 ...).
 */
export function xmlUtf16Of(bytes: Buffer): 'utf-16le' | 'utf-16be' | undefined {
  const [a, b, c, d] = bytes;
  if ((a === 0xff && b === 0xfe) || (a === 0x3c && b === 0 && c !== 0 && c! < 0x80 && d === 0)) return 'utf-16le';
  if ((a === 0xfe && b === 0xff) || (a === 0 && b === 0x3c && c === 0 && d !== 0 && d! < 0x80)) return 'utf-16be';
  return undefined;
}

export function decodeText(bytes: Buffer, charset: string): string {
  if (charset === 'utf-8' || charset === 'utf8') return bytes.toString('utf8');
  if (charset === 'utf-16le') return bytes.toString('utf16le');
  return iconv.decode(bytes, charset);
}

/**
 * How an answer writes a character its charset cannot hold: JSON as its \u escape (a surrogate
 * pair as two), XML as a character reference. Both are read back by any parser as the character
 * itself, so an answer in ISO-8859-15 loses nothing; iconv alone wrote `?` in its place, and the
 * client stored the `?` (a stock name `Glas — łódź` came back `Glas ? ?ód?`).
 */
export type Unrepresentable = (codePoint: number) => string;

export const jsonEscape: Unrepresentable = (codePoint) =>
  codePoint > 0xffff
    ? jsonEscape(0xd800 + ((codePoint - 0x10000) >> 10)) + jsonEscape(0xdc00 + ((codePoint - 0x10000) & 0x3ff))
    : `\\u${codePoint.toString(16).padStart(4, '0')}`;

export const xmlReference: Unrepresentable = (codePoint) => `&#x${codePoint.toString(16).toUpperCase()};`;

/**
 * The text in the charset; a character the charset cannot hold is written by `unrepresentable`
 * (without one, iconv's `?`). Only texts with a character beyond ASCII are looked at.
 */
export function encodeText(text: string, charset: string, unrepresentable?: Unrepresentable): Buffer {
  if (charset === 'utf-8' || charset === 'utf8') return Buffer.from(text, 'utf8');
  const held = unrepresentable && /[^ -~\t\n\r]/.test(text) ? escapeUnheld(text, charset, unrepresentable) : text;
  return iconv.encode(held, charset);
}

/** Per charset, whether it holds a character (each character tried once per process). */
const holds = new Map<string, Map<string, boolean>>();

function escapeUnheld(text: string, charset: string, unrepresentable: Unrepresentable): string {
  let known = holds.get(charset);
  if (!known) holds.set(charset, (known = new Map()));
  let out = '';
  for (const char of text) {
    if (char.charCodeAt(0) < 0x80) {
      out += char;
      continue;
    }
    let held = known.get(char);
    if (held === undefined) {
      held = iconv.decode(iconv.encode(char, charset), charset) === char;
      if (known.size < 10_000) known.set(char, held);
    }
    out += held ? char : unrepresentable(char.codePointAt(0)!);
  }
  return out;
}
