import { db } from '../db';
import { invalidField } from '../errors';
import { Joi, readOnly, runSearch, SearchRequest, SearchSpec } from '../http';
import { globalCategoryPlatforms, ownCategoryPlatforms } from '../portals';

/** Category_type (global categories are read only here). */
export const categoryType = Joi.object({
  platform: readOnly(Joi.string()),
  id: readOnly(Joi.string()),
  name: readOnly(Joi.string()),
  parent_id: readOnly(Joi.string()),
});

interface CategoryRow {
  platform: string;
  id: string;
  parent_id: string;
  name: string;
}

const toApi = (row: CategoryRow) => ({ platform: row.platform, id: row.id, name: row.name, parent_id: row.parent_id });

/** Category_filter_type for global categories: platform (required, = only), id[], parent_id[], name[]. */
export const categorySearch: SearchSpec<CategoryRow> = {
  filters: {
    platform: { column: 'platform', type: 'string', operators: ['='], singleton: true },
    id: { column: 'id', type: 'string' },
    parent_id: { column: 'parent_id', type: 'string' },
    name: { column: 'name', type: 'string' },
  },
  key: {
    column: 'id',
    parse: (minId) => (/^\d{1,12}$/.test(minId) ? minId : undefined),
    idOf: (row) => row.id,
  },
  type: categoryType,
  alwaysSelected: ['platform', 'id'],
  example: { platform: globalCategoryPlatforms[0]! },
};

/**
 * Document 2 makes platform required and allows one portal per request: exactly one value of a
 * platform of global categories, or a 400 naming filter.platform.
 */
function requirePlatform(search: SearchRequest): string {
  const conditions = search.singletons.filter((c) => c.field === categorySearch.filters.platform);
  const values = conditions.flatMap((c) => c.values.map(String));
  if (values.length === 0) throw invalidField('filter.platform', `filter.platform is required: one of ${globalCategoryPlatforms.join(', ')}`);
  if (new Set(values).size > 1) throw invalidField('filter.platform', 'filter.platform takes one portal per request');
  const platform = values[0]!;
  if ((ownCategoryPlatforms as readonly string[]).includes(platform)) {
    throw invalidField('filter.platform', `${platform} has own categories per account: use GET stock/category/`);
  }
  if (!(globalCategoryPlatforms as readonly string[]).includes(platform)) {
    throw invalidField('filter.platform', `filter.platform must be one of ${globalCategoryPlatforms.join(', ')}`);
  }
  return platform;
}

export const globalCategoryRepository = {
  /** Global categories of one platform with Category_filter_type and pagination. */
  search(search: SearchRequest) {
    requirePlatform(search);
    return runSearch(db()('global_category'), categorySearch, search, toApi);
  },
};
