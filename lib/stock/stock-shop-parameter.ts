/**
 * Shop_parameter_type: tax classes and manufacturers of the shop portals, each portal account
 * its own. Document 1 shows no path; they live under stock/shop_parameter/.
 */
import type { Knex } from 'knex';
import { db, transaction } from '../db';
import { invalidField, notFound } from '../errors';
import type { OrderScope } from '../access';
import { Joi, ownPortalAccountId as portalAccountIdField, readOnly, text, runSearch, SearchRequest, SearchSpec } from '../http';
import { ownPortalAccountId } from '../portal-account';

export const shopParameterTypes = ['tax_class', 'manufacturer'] as const;

/** Shop_parameter_type; id present on POST means update. */
export const shopParameterType = Joi.object({
  type: Joi.string()
    .valid(...shopParameterTypes)
    .required(),
  id: Joi.number().integer().min(1).max(2147483647),
  // Checked by the framework against the seller's portal accounts and the token's grant (403 outside it).
  portal_account_id: portalAccountIdField(),
  name: text(255),
  additional: text(2000),
});

export type ShopParameterInput = { type: string; id?: number; portal_account_id?: number; name?: string; additional?: string };

interface ShopParameterRow {
  id: number;
  portal_account_id: number;
  type: string;
  name: string;
  additional: string;
}

/** A row of stock_shop_parameter as stored: ShopParameterRow and its account. */
interface ShopParameterTableRow extends ShopParameterRow {
  account_id: number;
}

// The row type of stock_shop_parameter for Knex (declared once here, lib/stock owns the table): a
// parameter is inserted without its id; its name and additional text have defaults ('').
type ShopParameterInsert = Omit<ShopParameterTableRow, 'id' | 'name' | 'additional'> & Partial<Pick<ShopParameterTableRow, 'name' | 'additional'>>;
declare module 'knex/types/tables' {
  interface Tables {
    stock_shop_parameter: Knex.CompositeTableType<ShopParameterTableRow, ShopParameterInsert, Partial<ShopParameterInsert>>;
  }
}

const toApi = (row: ShopParameterRow) => ({ type: row.type, id: row.id, portal_account_id: row.portal_account_id, name: row.name, additional: row.additional });

/** Shop_parameter_filter_type: type (required, singleton), id[], name[], portal_account_id. */
export const shopParameterSearch: SearchSpec<ShopParameterRow> = {
  filters: {
    type: { column: 'type', type: 'string', operators: ['='], singleton: true },
    id: { column: 'id', type: 'integer' },
    name: { column: 'name', type: 'string' },
    portal_account_id: { column: 'portal_account_id', type: 'integer', operators: ['=', '!='] },
  },
  key: { column: 'id', parse: (minId) => (/^\d{1,10}$/.test(minId) && Number(minId) <= 2147483647 ? Number(minId) : undefined), idOf: (row) => String(row.id) },
  type: shopParameterType.keys({ type: readOnly(Joi.string()), id: readOnly(Joi.number()) }),
  alwaysSelected: ['type', 'id'],
  example: { type: shopParameterTypes[0] },
};

/** The rows of the seller a caller reaches: its grant's portal account, or all of them. */
function ofGrant<Q extends Knex.QueryBuilder>(q: Q, scope: OrderScope): Q {
  void q.where('account_id', scope.accountId);
  if (scope.portalAccountGrant !== 'all') void q.where('portal_account_id', scope.portalAccountGrant);
  return q;
}

export const shopParameterRepository = {
  /** A client bound to one portal account reads that portal account's parameters only (each belongs to one). */
  search(scope: OrderScope, search: SearchRequest) {
    const types = search.singletons.filter((c) => c.field === shopParameterSearch.filters.type).flatMap((c) => c.values.map(String));
    if (types.length !== 1 || !(shopParameterTypes as readonly string[]).includes(types[0]!)) {
      throw invalidField('filter.type', `filter.type is required: one of ${shopParameterTypes.join(', ')}`);
    }
    return runSearch(ofGrant(db()('stock_shop_parameter'), scope), shopParameterSearch, search, toApi);
  },

  /**
   * Creates (no id) or updates a parameter of one of the account's portal accounts; returns its id
   * and whether it is new. An update moves the parameter only to a portal account it is given
   * (portalAccountId undefined: it stays where it is). A client bound to one portal account updates
   * only that portal account's: another's id is the 404 of an absent one (it would have moved it
   * to its own).
   */
  async save(scope: OrderScope, portalAccountId: number | undefined, input: ShopParameterInput): Promise<{ id: number; created: boolean }> {
    const { accountId } = scope;
    // With the request's id: a COMMIT whose answer is lost can be asked after (lib/db transaction).
    return transaction(async (trx) => {
      if (input.id === undefined) {
        if (portalAccountId === undefined) throw new Error('a new shop parameter needs its portal account');
        const [row] = await trx('stock_shop_parameter')
          .insert({ account_id: accountId, portal_account_id: portalAccountId, type: input.type, name: input.name ?? '', additional: input.additional ?? '' })
          .returning('id');
        return { id: row!.id, created: true };
      }
      const changes = {
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(input.additional !== undefined ? { additional: input.additional } : {}),
        ...(portalAccountId !== undefined ? { portal_account_id: portalAccountId } : {}),
      };
      const query = ofGrant(trx('stock_shop_parameter'), scope).where({ id: input.id, type: input.type });
      // Nothing to change: still a 404 when there is no such parameter (an update names one).
      const count = Object.keys(changes).length ? await query.update(changes) : Number((await query.clone().count({ n: '*' }))[0]!.n);
      if (count === 0) throw notFound(`shop parameter ${input.type} ${input.id}`, 'shop_parameter.id');
      return { id: input.id, created: false };
    }, scope.requestId);
  },
};

/**
 * POST stock/shop_parameter/: a new parameter is saved for the portal account it names, else the
 * request's. An update keeps the parameter's portal account unless the body names one: portal_account_id
 * is part of the parameter's key (Shop_parameter_type: "PK; each account has its own parameters"),
 * and a client renaming a tax class of its second shop without repeating portal_account_id had it
 * moved to the request's (default) portal account, out of the shop it belonged to. Document 1's
 * request-level portal_account_id is the fallback for what a request creates, so it moves nothing
 * (choice; lib/stock README).
 */
export async function saveShopParameter(
  scope: OrderScope,
  requestPortalAccountId: number | null,
  input: ShopParameterInput,
): Promise<{ id: number; created: boolean }> {
  const keeps = input.id !== undefined && input.portal_account_id === undefined;
  const portalAccountId = keeps
    ? undefined
    : await ownPortalAccountId(scope.accountId, input.portal_account_id, requestPortalAccountId, 'shop_parameter.portal_account_id');
  return shopParameterRepository.save(scope, portalAccountId, input);
}
