/**
 * GET bank/transfer/ and bank/payment_provider/: Bank_filter_type over the account's records of
 * one type, in bank-number order. id and date are singleton filters; date.from/date.to is a range
 * of at most 3 months, by default the last month (document 1, Limits).
 */
import type { OrderScope } from '../access';
import { db } from '../db';
import { invalidField } from '../errors';
import { runSearch, SearchPage, SearchRequest, SearchSpec } from '../http';
import type { FilterField } from '../http';
import { bankRepository } from './bank.repository';
import { bankIdPattern, BankKind, BankRow, bankToApi, bankType, matchRules, unassignedReasons } from './bank.type';

const dateFrom: FilterField = { column: 'bank.created_at', type: 'datetime', operators: ['='], singleton: true };
// A date without a time ends the period with that whole day (dateRange).
const dateTo: FilterField = { column: 'bank.created_at', type: 'datetime', operators: ['='], singleton: true, dayText: true };

/**
 * Bank_filter_type (document 2), and ours: is_assigned (the records no order took, to assign by
 * hand), unassigned_reason and match_rule (bank.match.ts), currency_id.
 */
export const bankSearch: SearchSpec<BankRow> = {
  filters: {
    id: { column: 'bank.id', type: 'string', operators: ['='], singleton: true },
    'date.from': dateFrom,
    'date.to': dateTo,
    is_assigned: { expression: '(bank.order_id IS NOT NULL)', type: 'bool', operators: ['='] },
    // A misspelt reason or rule ('no-match') answered no records, read as "nothing left to assign".
    unassigned_reason: { column: 'bank.unassigned_reason', type: 'string', operators: ['='], values: unassignedReasons },
    match_rule: { column: 'bank.match_rule', type: 'string', operators: ['='], values: matchRules },
    currency_id: { column: 'bank.currency_id', type: 'string', operators: ['='] },
  },
  key: {
    column: 'bank.number',
    parse: (minId) => bankIdPattern.exec(minId.trim())?.[1],
    idOf: (row) => row.id,
  },
  type: bankType,
  alwaysSelected: ['id'],
};

const maxMonths = 3;

function monthsBefore(at: Date, months: number): Date {
  const d = new Date(at.getTime());
  d.setUTCMonth(d.getUTCMonth() - months);
  return d;
}

/**
 * The date range of a search: date.to defaults to now, date.from to date.to minus one month;
 * more than 3 months is a 400 naming filter.date.from. A search by id without a date filter
 * is not limited in time (a known id is always found). A date.to without a time (YYYY-MM-DD)
 * ends the period with that whole day (decision; document 2 types it datetime and shows no date
 * form): its midnight left out every record read in that day, so an ERP asking for
 * `from=to=today` got nothing and booked none of the day's payments. The period's length and
 * the default date.from still count from that day (2026-01-01 to 2026-04-01 is 3 months).
 */
export function dateRange(search: SearchRequest, now = new Date()): { from: Date; to: Date } | undefined {
  const one = (field: FilterField, name: string): string | undefined => {
    const conditions = search.singletons.filter((c) => c.field === field);
    const values = conditions.flatMap((c) => c.values);
    if (values.length > 1) throw invalidField(`filter.${name}`, `filter.${name} takes one value`);
    return values.length ? String(values[0]) : undefined;
  };
  const fromText = one(dateFrom, 'date.from');
  const toText = one(dateTo, 'date.to');
  const byId = search.singletons.some((c) => c.field === bankSearch.filters.id);
  if (fromText === undefined && toText === undefined && byId) return undefined;
  const wholeDay = toText !== undefined && /^\d{4}-\d{2}-\d{2}$/.test(toText);
  // The day's first instant measures the period; its last one ends the search.
  const end = toText === undefined ? now : new Date(wholeDay ? `${toText}T00:00:00.000Z` : toText);
  const last = wholeDay ? new Date(end.getTime() + 86400000 - 1) : end;
  const start = fromText === undefined ? monthsBefore(end, 1) : new Date(fromText);
  if (start > last) throw invalidField('filter.date.from', 'filter.date.from must not be after filter.date.to', 'invalid_range');
  if (start < monthsBefore(end, maxMonths)) {
    throw invalidField('filter.date.from', `filter.date: the search period may be at most ${maxMonths} months`, 'period_too_long');
  }
  return { from: start, to: last };
}

export const bankSearchRepository = {
  /** A page of the records of one type the caller may see (bankRepository.searchBase). */
  search(scope: OrderScope, type: BankKind, search: SearchRequest): Promise<SearchPage<Record<string, unknown>>> {
    const range = dateRange(search);
    const base = bankRepository.searchBase(db(), scope, type, range);
    const rest = { ...search, singletons: search.singletons.filter((c) => c.field !== dateFrom && c.field !== dateTo) };
    return runSearch(base, bankSearch, rest, bankToApi);
  },
};
