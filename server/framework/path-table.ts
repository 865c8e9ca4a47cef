/**
 * The API's paths, matched as Express matched them when each path was a route of its router
 * (router 2, strict: false, caseSensitive: true): a literal segment wins over a parameter at the
 * same place (stock/category/ is not stock/{stock_id}/), one trailing slash is optional, a
 * parameter is never empty and is percent-decoded, a parameter that does not decode is a 400
 * naming it (Express's 400 named nothing, and a client could not tell which part to correct).
 * One map lookup by first segment, then the paths of that segment and length: the walk of
 * nested routers and routes it replaces was about 4 % of a trivial GET's web CPU (profile).
 */

import { invalidField } from '../../lib/errors';

type Part = { literal: string } | { param: string };

export interface PathMatch<T> {
  value: T;
  params: Record<string, string>;
}

export class PathTable<T> {
  private readonly byHead = new Map<string, { parts: Part[]; value: T }[]>();

  /** Adds a declared path ('order/{order_id}/history/'); it must start with a literal segment. */
  add(path: string, value: T): void {
    const parts: Part[] = path
      .replace(/\/$/, '')
      .split('/')
      .map((s) => (s.startsWith('{') ? { param: s.slice(1, -1) } : { literal: s }));
    const head = parts[0];
    if (!head || !('literal' in head) || !head.literal) throw new Error(`endpoint path ${path} must start with a literal segment`);
    const paths = this.byHead.get(head.literal) ?? [];
    paths.push({ parts, value });
    paths.sort((a, b) => bySpecificity(a.parts, b.parts));
    this.byHead.set(head.literal, paths);
  }

  /** The value and parameters of a request path ('/order/5/history/'), if a declared path matches. */
  match(path: string): PathMatch<T> | undefined {
    if (path.charCodeAt(0) !== 47) return undefined;
    const end = path.length > 1 && path.charCodeAt(path.length - 1) === 47 ? path.length - 1 : path.length;
    const segments = path.slice(1, end).split('/');
    const candidates = this.byHead.get(segments[0]!);
    if (!candidates) return undefined;
    for (const { parts, value } of candidates) {
      if (parts.length !== segments.length || !parts.every((part, i) => fits(part, segments[i]!))) continue;
      const params: Record<string, string> = {};
      parts.forEach((part, i) => {
        if ('param' in part) params[part.param] = decodeParam(part.param, segments[i]!);
      });
      return { value, params };
    }
    return undefined;
  }
}

function fits(part: Part, segment: string): boolean {
  return 'literal' in part ? part.literal === segment : segment.length > 0;
}

function bySpecificity(a: Part[], b: Part[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const ap = 'param' in a[i]! ? 1 : 0;
    const bp = 'param' in b[i]! ? 1 : 0;
    if (ap !== bp) return ap - bp;
  }
  return a.length - b.length;
}

/** Express's decoding of a parameter: a malformed escape is the client's error, a 400 naming the parameter. */
function decodeParam(name: string, value: string): string {
  if (!value.includes('%')) return value;
  try {
    return decodeURIComponent(value);
  } catch (err) {
    if (err instanceof URIError) throw invalidField(name, `${name} in the path is not percent-encoded UTF-8`);
    throw err;
  }
}
