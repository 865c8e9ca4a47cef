/**
 * A statement file as received (bytes): decoded, its format recognised, parsed. MT940 files of
 * German banks are ISO-8859-1/15 (no charset travels with them): bytes that are not valid UTF-8
 * are read as ISO-8859-15. A CAMT file is UTF-8 by ISO 20022.
 */
import iconv from 'iconv-lite';
import { invalidInput } from '../../errors';
import { isCamt, parseCamt } from './camt';
import { isMt940, parseMt940 } from './mt940';
import type { ParsedStatement } from './statement.type';

const utf8 = new TextDecoder('utf-8', { fatal: true });

function decode(bytes: Buffer): string {
  try {
    return utf8.decode(bytes);
  } catch {
    return iconv.decode(bytes, 'iso-8859-15');
  }
}

export async function parseStatement(bytes: Buffer): Promise<ParsedStatement> {
  const text = decode(bytes).replace(/^\uFEFF/, '');
  if (text.includes('\u0000')) throw invalidInput('malformed_statement', 'the statement file holds NUL characters: not a CAMT.053 or MT940 text file');
  if (!text.trim()) throw invalidInput('malformed_statement', 'the statement file is empty');
  if (text.trimStart().startsWith('<')) {
    if (!isCamt(text)) throw invalidInput('unsupported_statement', 'the XML is not a camt.053 statement (Document/BkToCstmrStmt)', 'Document/BkToCstmrStmt');
    return parseCamt(text);
  }
  if (isMt940(text)) return parseMt940(text);
  throw invalidInput('unsupported_statement', 'the file is neither a CAMT.053 statement (XML) nor an MT940 statement (:20: ...)');
}
