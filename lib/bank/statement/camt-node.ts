/** Reading fast-xml-parser's folded tree of a CAMT document (camt.ts's options), and its 400. */
import { invalidInput } from '../../errors';

export type Node = Record<string, unknown>;

/** Attributes are read with this prefix (camt.ts's parser options). */
export const attributePrefix = '@_';

/** An element that may repeat, as a list (absent or empty: none). */
export const list = (value: unknown): unknown[] => (value === undefined || value === '' ? [] : Array.isArray(value) ? value : [value]);

/** An element with children, or {} for anything else. */
export const node = (value: unknown): Node => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Node) : {});

/** An element's text ('' when absent), trimmed by the parser. */
export const textOf = (value: unknown): string =>
  typeof value === 'string' ? value : typeof value === 'object' && value !== null ? textOf((value as Node)['#text']) : '';

/** An attribute of an element ('' when absent). */
export const attributeOf = (value: unknown, name: string): string => textOf(node(value)[`${attributePrefix}${name}`]);

/** A 400 malformed_statement naming the element at fault: `Document/BkToCstmrStmt/Stmt[2]/Ntry[1]/Amt`. */
export const refuse = (format: string, path: string, what: string) => invalidInput('malformed_statement', `${format}: ${path} ${what}`, path);
