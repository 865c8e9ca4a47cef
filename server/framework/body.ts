import type { Request } from 'express';
import { invalidInput, invalidField } from '../../lib/errors';
import { checkInput } from '../../lib/http/input-bounds';
import { decodeText, isSupportedCharset, parseContentType } from '../../lib/http/media';
import { parseXmlRequest } from '../../lib/http/xml';
import { parseQuery } from './query-parser';

/**
 * Decodes a request body from its raw bytes: JSON, XML (under <request>) or a form, in UTF-8 or
 * ISO-8859-15, with the Content-Type forms real clients send (see lib/http/media.ts), and checked
 * against the input bounds before anything validates it.
 */
export async function decodeBody(req: Request): Promise<Record<string, unknown>> {
  const body = await decodeRaw(req);
  checkInput(body);
  return body;
}

async function decodeRaw(req: Request): Promise<Record<string, unknown>> {
  const bytes = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
  if (bytes.length === 0) return {};
  const { format, charset } = parseContentType(req.headers['content-type']);
  if (!isSupportedCharset(charset)) throw invalidField('Content-Type', `charset ${charset} is not supported; use UTF-8 or ISO-8859-15`, 'unsupported_charset');
  const text = decodeText(bytes, charset).replace(/^\uFEFF/, '');
  if (!text.trim()) return {};
  const kind = format ?? sniff(text);
  if (kind === 'xml') return parseXmlRequest(text);
  if (kind === 'form') return parseQuery(text);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw invalidInput('malformed_json', `the JSON body is malformed: ${(err as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalidInput('malformed_json', 'the JSON body must be an object');
  return value as Record<string, unknown>;
}

function sniff(text: string): 'json' | 'xml' | 'form' {
  const start = text.trimStart()[0];
  if (start === '<') return 'xml';
  if (start === '{' || start === '[') return 'json';
  return 'form';
}
