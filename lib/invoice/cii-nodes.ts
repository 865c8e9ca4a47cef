/**
 * Walking a parsed CII document: one parser setting and the two lookups both readers of CII use
 * (facturx-reader.ts for any Factur-X/ZUGFeRD file, invoice-credited.ts for our own archived
 * invoices). Namespace prefixes are dropped and values kept as text, so amounts keep their digits.
 */
import { XMLParser } from 'fast-xml-parser';

export type CiiNode = Record<string, unknown>;

/** A parser for CII; `arrays` names the elements that may repeat and are always read as lists. */
export const ciiParser = (arrays: string[] = []): XMLParser =>
  new XMLParser({
    removeNSPrefix: true,
    ignoreAttributes: false,
    attributeNamePrefix: '@',
    parseTagValue: false,
    trimValues: true,
    isArray: (name) => arrays.includes(name),
  });

/** The node at `path` below `n`, taking the first of any repeated element on the way. */
export const child = (n: unknown, ...path: string[]): unknown =>
  path.reduce<unknown>((at, key) => (at && typeof at === 'object' ? (Array.isArray(at) ? at[0] : at)[key as never] : undefined), n);

/** The text of a node ('' when absent), whether it carries attributes or not. */
export const value = (n: unknown): string => {
  const v = Array.isArray(n) ? n[0] : n;
  if (v === undefined || v === null) return '';
  return typeof v === 'object' ? String((v as CiiNode)['#text'] ?? '') : String(v);
};

/** A repeated element as a list, whether it occurred once, several times or not at all. */
export const list = (n: unknown): CiiNode[] => (Array.isArray(n) ? (n as CiiNode[]) : n ? [n as CiiNode] : []);
