import type Joi from 'joi';

export type FieldType = 'string' | 'integer' | 'decimal' | 'bool' | 'date' | 'datetime';
export type Operator = '=' | '!=' | '<' | '<=' | '>' | '>=' | '~' | '!~';
export const operators: Operator[] = ['=', '!=', '<', '<=', '>', '>=', '~', '!~'];

/** One filterable field of a resource: where it lives in SQL, its type and the operators it takes. */
export interface FilterField {
  /** Column name (an identifier from our code, never from input). */
  column?: string;
  /** Or a trusted SQL expression, for values inside JSONB and the like. */
  expression?: string;
  type: FieldType;
  /** Allowed operators; default by type (strings: = != ~ !~; others: comparisons). */
  operators?: Operator[];
  /** Document 1: a singleton filter is valid only in the first filter object and applies to all. */
  singleton?: boolean;
  /** The column is a bigint; other integer filters are bounded to PostgreSQL's integer. */
  bigint?: boolean;
  /** The column is an SQL array; = matches any element, ~ any element like the pattern. */
  array?: boolean;
  /** = and the comparisons read an indexed table beside the row instead of the column (!= reads the column). */
  lookup?: Lookup;
  /**
   * A datetime that ends a range (bank's date.to): a date without a time stays its YYYY-MM-DD
   * text, for the searcher to read as the whole of that day; a value with a time is the datetime.
   */
  dayText?: boolean;
  /**
   * The only values the field holds (a state, a type): any other value of = or != is a 400
   * naming it, not an empty answer a client reads as "none".
   */
  values?: readonly string[];
}

/**
 * Where a field's values are indexed when the row's own column is not (so that the updates
 * setting it stay HOT; lib/order's invoice number): the rows whose `rowKey` the table lists, under
 * `key`, with a matching `column`. `where` narrows the table to the searched tenant; it is set
 * per search (scopeLookups), and a lookup without it is refused.
 */
export interface Lookup {
  /** The searched row's key (sales_order.internal_id). */
  rowKey: string;
  table: string;
  key: string;
  column: string;
  where?: Record<string, string | number>;
}

/** What a resource declares so that the engine can search it. */
export interface SearchSpec<Row> {
  /** Filter fields by their dotted API path (customer.email). */
  filters: Record<string, FilterField>;
  /** Index order for page and min_id: the column, how to read a client's min_id, and a row's id. */
  key: {
    column: string;
    /** Turns a min_id into the key column's value; undefined when malformed. */
    parse(minId: string): string | number | undefined;
    /** The id a client passes back as next_min_id. */
    idOf(row: Row): string;
  };
  /** The read type (document 2), for validating select. */
  type: Joi.ObjectSchema;
  /** Fields returned whatever select names. */
  alwaysSelected: string[];
  /**
   * The filter the docs page's "Try it out" starts with: the fields a search cannot do without
   * (a category's platform), so that its first Execute is answered. Default none.
   */
  example?: Record<string, string>;
}

export interface Condition {
  field: FilterField;
  operator: Operator;
  values: (string | number | boolean)[];
}

/** A filter object: its conditions are joined by AND. */
export type FilterObject = Condition[];

export type SelectTree = { [key: string]: SelectTree | true };

export interface SearchRequest {
  select: SelectTree | null;
  /** Conditions from singleton fields: they apply to every filter object. */
  singletons: Condition[];
  /** Filter objects, joined by OR. No object, or an object without conditions (only singletons): no restriction. */
  filters: FilterObject[];
  limit: number;
  /** Present in min_id mode, absent in page mode. */
  minKey?: string | number;
  offset: number;
}

export interface SearchPage<T> {
  items: T[];
  /** The min_id of the next page, in min_id mode when there is one. */
  nextMinId?: string;
}
