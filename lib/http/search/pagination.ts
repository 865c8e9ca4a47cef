import { invalidField } from '../../errors';

export const defaultLimit = 20;
export const maxLimit = 200;
/** The largest page number: 9 digits, so that (page - 1) × limit stays far inside a bigint offset. */
export const maxPage = 999_999_999;

export interface Pagination {
  limit: number;
  offset: number;
  minId?: string;
}

/** Pagination_type: page (0 or absent is 1), limit (default 20, at most 200), min_id (replaces page). */
export function parsePagination(raw: unknown): Pagination {
  if (raw === undefined || raw === '') return { limit: defaultLimit, offset: 0 };
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw invalidField('pagination', 'pagination must be an object with page, limit or min_id');
  const { page, limit, min_id: minId, ...rest } = raw as Record<string, unknown>;
  const extra = Object.keys(rest)[0];
  if (extra) throw invalidField(`pagination[${extra}]`, `pagination[${extra}] is not a field of Pagination_type`);
  const size = whole(limit, 'pagination[limit]', defaultLimit, 1, maxLimit);
  const pageNumber = Math.max(whole(page, 'pagination[page]', 1, 0, maxPage), 1);
  if (minId !== undefined && minId !== '') {
    if (typeof minId !== 'string' && typeof minId !== 'number') throw invalidField('pagination[min_id]', 'pagination[min_id] must be an id');
    return { limit: size, offset: 0, minId: String(minId) };
  }
  return { limit: size, offset: (pageNumber - 1) * size };
}

/**
 * A whole number from min to max, as digits (spaces around them), or the fallback when not sent.
 * The message names the range: a page of 10 digits (2147483647) was refused as "must be a whole
 * number", which it is (found 2026-11-30).
 */
function whole(value: unknown, field: string, fallback: number, min: number, max: number): number {
  if (value === undefined || value === '') return fallback;
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\s*\d{1,9}\s*$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) throw invalidField(field, `${field} must be a whole number from ${min} to ${max}`);
  return n;
}
