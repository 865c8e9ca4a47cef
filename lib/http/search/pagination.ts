import { invalidField } from '../../errors';

export const defaultLimit = 20;
export const maxLimit = 200;

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
  const size = whole(limit, 'pagination[limit]', defaultLimit);
  if (size < 1 || size > maxLimit) throw invalidField('pagination[limit]', `pagination[limit] must be between 1 and ${maxLimit}`);
  const pageNumber = Math.max(whole(page, 'pagination[page]', 1), 1);
  if (minId !== undefined && minId !== '') {
    if (typeof minId !== 'string' && typeof minId !== 'number') throw invalidField('pagination[min_id]', 'pagination[min_id] must be an id');
    return { limit: size, offset: 0, minId: String(minId) };
  }
  return { limit: size, offset: (pageNumber - 1) * size };
}

function whole(value: unknown, field: string, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\s*\d{1,9}\s*$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < 0) throw invalidField(field, `${field} must be a whole number`);
  return n;
}
