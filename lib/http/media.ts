import iconv from 'iconv-lite';

export type MediaFormat = 'json' | 'xml' | 'form';

export interface MediaType {
  format: MediaFormat | null;
  charset: string;
}

/**
 * Parses a Content-Type the way clients of this interface send it: parameters may follow a
 * semicolon or only a space (`application/json encoding=utf-8`), and the charset may be named
 * charset= or encoding=.
 */
export function parseContentType(header: string | undefined): MediaType {
  if (!header) return { format: null, charset: 'utf-8' };
  const [type = '', ...params] = header
    .trim()
    .toLowerCase()
    .split(/[;\s,]+/)
    .filter(Boolean);
  let charset = 'utf-8';
  for (const param of params) {
    const [key, value] = param.split('=');
    if ((key === 'charset' || key === 'encoding') && value) charset = value.replace(/^"|"$/g, '');
  }
  return { format: formatOf(type), charset };
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

/** The response charset from Accept-Charset: ISO-8859-15 (or Latin-1) when asked, UTF-8 otherwise. */
export function negotiateCharset(acceptCharset: string | undefined): string {
  if (!acceptCharset) return 'utf-8';
  for (const part of acceptCharset.toLowerCase().split(',')) {
    const name = part.trim().split(';')[0] ?? '';
    if (name === 'utf-8' || name === '*') return 'utf-8';
    if (isSupportedCharset(name)) return name;
  }
  return 'utf-8';
}

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

export function decodeText(bytes: Buffer, charset: string): string {
  return charset === 'utf-8' || charset === 'utf8' ? bytes.toString('utf8') : iconv.decode(bytes, charset);
}

export function encodeText(text: string, charset: string): Buffer {
  return charset === 'utf-8' ? Buffer.from(text, 'utf8') : iconv.encode(text, charset);
}
