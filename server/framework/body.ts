import { isUtf8 } from 'node:buffer';
import express, { Request } from 'express';
import { config } from '../../config';
import { domainError, invalidInput, invalidField, tooLarge } from '../../lib/errors';
import { checkInput, decodeText, isSupportedCharset, isUtf16, parseContentType, parseXmlRequest, xmlDeclaredEncoding, xmlUtf16Of } from '../../lib/http';
import { parseQuery, refuseReservedKeys } from './query-parser';

/** Bodies decoded since the process started: a test shows that a refused caller cost none. */
export const bodyStats = { decoded: 0 };

let rawParser: { limit: number; parse: ReturnType<typeof express.raw> } | undefined;

/** Express's raw body reader (limit, Content-Encoding) for the configured limit, built once per limit. */
function parserFor(limit: number): ReturnType<typeof express.raw> {
  if (rawParser?.limit !== limit) rawParser = { limit, parse: express.raw({ type: () => true, limit }) };
  return rawParser.parse;
}

/** Whether the request's body has been read (or it has none: no length or 0, and not chunked). */
export const bodyRead = (req: Request) =>
  Buffer.isBuffer(req.body) || ((req.headers['content-length'] ?? '0') === '0' && req.headers['transfer-encoding'] === undefined);

/**
 * Reads the request's body as bytes into req.body, once, when a handler asks for it: never before
 * the endpoint authenticated its caller (server/framework/mount.ts), so an unknown caller's body is
 * neither buffered nor parsed. Larger than BODY_LIMIT_BYTES: 413.
 */
export async function readRawBody(req: Request): Promise<Buffer> {
  if (!Buffer.isBuffer(req.body)) {
    await new Promise<void>((resolve, reject) =>
      parserFor(config().bodyLimitBytes)(req, req.res!, (err?: unknown) => (err ? reject(readError(err)) : resolve())),
    );
  }
  return Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
}

/**
 * body-parser's errors as the domain errors the envelope answers, each 400 naming what to correct
 * (lib/http README, "Every 400 names its field"): a Content-Encoding body-parser does not decode
 * names that header; a body that does not decode as its Content-Encoding says, or ends before its
 * Content-Length, names `body`. Before, both answered "the request could not be read" naming nothing.
 */
function readError(err: unknown): unknown {
  const e = err as { type?: string; status?: number; encoding?: unknown };
  if (e.type === 'entity.too.large') return tooLarge(`the request body exceeds ${config().bodyLimitBytes} bytes`);
  if (e.type === 'encoding.unsupported') {
    return domainError('bad_request', `Content-Encoding ${String(e.encoding)} is not read: send the body as identity, gzip, deflate or br`, {
      field: 'Content-Encoding',
    });
  }
  if (e.status && e.status >= 400 && e.status < 500) return domainError('bad_request', 'the request body could not be read', { field: 'body' });
  return err;
}

/**
 * Decodes a request body from its raw bytes: JSON, XML (under <request>) or a form, in UTF-8 or
 * ISO-8859-15, with the Content-Type forms real clients send (see lib/http/media.ts), and checked
 * against the input bounds before anything validates it.
 */
export async function decodeBody(req: Request): Promise<Record<string, unknown>> {
  await readRawBody(req);
  const body = await decodeRaw(req);
  decodedBodies.set(req, body);
  checkInput(body);
  return body;
}

/** Each request's decoded body, for the answer to bound what it repeats of it (respond.ts, lib/http echo-bound.ts). */
const decodedBodies = new WeakMap<Request, Record<string, unknown>>();

/** The body the request's endpoint decoded, if any. */
export const decodedBodyOf = (req: Request): Record<string, unknown> | undefined => decodedBodies.get(req);

async function decodeRaw(req: Request): Promise<Record<string, unknown>> {
  const bytes = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
  if (bytes.length === 0) return {};
  bodyStats.decoded += 1;
  // A multipart body (PHP's curl given an array as CURLOPT_POSTFIELDS, an HTML form with a file) is
  // no format of this interface: read by its first character as a form, its boundary lines were
  // answered as unknown fields, and token.php's grant_type as missing though it was sent.
  if (/^\s*multipart\//i.test(req.headers['content-type'] ?? ''))
    throw domainError('bad_request', 'a multipart body is not read: send JSON, XML or application/x-www-form-urlencoded (token.php takes the form)', {
      field: 'Content-Type',
    });
  const { format, charset: given, charsetGiven } = parseContentType(req.headers['content-type']);
  const mayBeXml = format === 'xml' || format === null;
  if (!isSupportedCharset(given) && !(mayBeXml && isUtf16(given)))
    throw invalidField('Content-Type', `charset ${given} is not supported; use UTF-8 or ISO-8859-15`, 'unsupported_charset');
  const charset = (mayBeXml ? xmlCharset(bytes, charsetGiven ? given : undefined) : undefined) ?? given;
  // Bytes that are no UTF-8 where UTF-8 is meant (named, or the default) would be stored as U+FFFD
  // replacement characters: a client sending ISO-8859-15 without saying so loses its € and
  // umlauts. Document 1's 400: nothing is changed, and the answer says what to send.
  if ((charset === 'utf-8' || charset === 'utf8') && !isUtf8(bytes))
    throw invalidField('Content-Type', 'the body is not valid UTF-8; name its charset in Content-Type (charset=ISO-8859-15)', 'invalid_text');
  if (isUtf16(charset) && bytes.length % 2 === 1)
    throw invalidField('Content-Type', 'the body is not valid UTF-16: it ends in half a character', 'invalid_text');
  const text = decodeText(bytes, charset).replace(/^\uFEFF/, '');
  if (!text.trim()) return {};
  // A form whose text starts as JSON or XML is that (curl -d '{...}' without -H sends its
  // default form type); no form of this interface starts with {, [ or <.
  const kind = format === null || (format === 'form' && /^\s*[{[<]/.test(text)) ? sniff(text) : format;
  if (kind === 'xml') return parseXmlRequest(text);
  if (kind === 'form') {
    refuseReservedKeys(text);
    return parseQuery(text);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw invalidInput('malformed_json', `the JSON body is malformed: ${(err as Error).message}`, 'body');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalidInput('malformed_json', 'the JSON body must be an object', 'body');
  return value as Record<string, unknown>;
}

/**
 * An XML body's charset (XML 1.0 4.3.3 and Appendix F; RFC 7303 3.2 for application/xml and
 * text/xml alike), undefined for the default (UTF-8):
 * - **UTF-16 is told by the bytes:** a byte order mark, or NULs beside the first ASCII characters
 *   (`xmlUtf16Of`), whatever Content-Type or the declaration say; every XML processor must read
 *   UTF-16 (4.3.3), and it was a 400 `unsupported_charset`.
 * - else Content-Type's charset; else, without a UTF-8 BOM, the encoding declaration: a PHP or
 *   Java client writing `<?xml ... encoding="ISO-8859-15"?>` sends the header without a charset
 *   (its body was read as UTF-8). A declared charset we do not take is the 400 of an unsupported
 *   Content-Type charset.
 * - **UTF-16 named for 8-bit bytes is read as UTF-8 (decision):** .NET's XmlSerializer writing to
 *   a string declares `encoding="utf-16"`, and the HTTP client then sends that string in UTF-8;
 *   libxml2 reads such a document as UTF-8 too. Bytes that are not UTF-8 then stay the 400 that
 *   asks for the charset.
 */
function xmlCharset(bytes: Buffer, named: string | undefined): string | undefined {
  const utf16 = xmlUtf16Of(bytes);
  if (utf16) return utf16;
  if (named) return isUtf16(named) ? 'utf-8' : named;
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return undefined; // a UTF-8 BOM wins
  const declared = xmlDeclaredEncoding(bytes);
  if (declared === undefined || declared === 'utf-8' || declared === 'utf8' || isUtf16(declared)) return undefined;
  if (!isSupportedCharset(declared))
    throw invalidField('Content-Type', `the XML declares encoding ${declared}, which is not supported; use UTF-8 or ISO-8859-15`, 'unsupported_charset');
  return declared;
}

function sniff(text: string): 'json' | 'xml' | 'form' {
  const start = text.trimStart()[0];
  if (start === '<') return 'xml';
  if (start === '{' || start === '[') return 'json';
  return 'form';
}
