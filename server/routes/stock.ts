import { created, endpoint, multiStatus, ok, okPage, Joi, list, revisionNotes } from '../../lib/http';
import {
  saveShopParameter,
  ShopParameterInput,
  shopParameterRepository,
  shopParameterSearch,
  shopParameterType,
  OwnCategoryInput,
  ownCategoryBody,
  ownCategoryRepository,
  ownCategorySearch,
  saveOwnCategories,
  DescriptionInput,
  stockDescriptionType,
  createDescription,
  deleteDescription,
  listDescriptions,
  readDescription,
  updateDescription,
  allHistorySearch,
  itemHistorySearch,
  stockHistoryRepository,
  maxListItems,
  saveStockList,
  stockSearch,
  createStockItem,
  deleteStockItem,
  listFolders,
  readStock,
  searchItemHistory,
  searchStock,
  updateStockItem,
  StockInput,
  stockListItemType,
  stockType,
} from '../../lib/stock';

/** {stock_id}: an integer or an ID_/EAN_/SKU_/MPN_/MKTDSKU_ identifier, resolved in lib/stock. */
const stockParams = Joi.object({ stock_id: Joi.string().trim().min(1).max(300) });
type StockParams = { stock_id: string };
const descriptionParams = Joi.object({ stock_id: Joi.string().trim().min(1).max(300), description_id: Joi.number().integer().min(1).max(2147483647) });
type DescriptionParams = { stock_id: string; description_id: number };

/** Stock items (document 1, Stock). */
export const stockEndpoints = [
  endpoint({
    method: 'GET',
    path: 'stock/',
    changes: [revisionNotes.setTypeLowercase, revisionNotes.stockFilterMarketD],
    summary: 'Search stock items with select, Stock_filter_type and pagination (page or min_id).',
    scope: 'stock_r',
    search: stockSearch,
    response: ['stock', 'next_min_id'],
    async handle({ caller, search }) {
      const result = await searchStock(caller, search);
      return okPage('stock', result);
    },
  }),

  endpoint<Record<string, never>, { stock: StockInput }>({
    method: 'POST',
    path: 'stock/',
    changes: [revisionNotes.listerNameToMaster],
    creates: true,
    summary: 'Create a stock item; answers its stock_id and the lister ids written.',
    scope: 'stock_w',
    body: Joi.object({ stock: stockType().required() }),
    example: { stock: { name: 'Enamel mug', quantity: 10, price: '12.50', tax: '19' } },
    response: ['stock_id', 'lister_id'],
    async handle({ caller, body, request }) {
      const result = await createStockItem(caller, body.stock, request.warnings);
      return created({ stock_id: result.stockId, lister_id: result.listerIds });
    },
  }),

  endpoint({
    method: 'GET',
    path: 'stock/history/',
    summary: 'Stock movements of all items with Stock_history_filter_type and pagination.',
    scope: 'stock_r',
    search: allHistorySearch,
    response: ['stock_history', 'next_min_id'],
    async handle({ caller, search }) {
      const result = await stockHistoryRepository.search(caller, search);
      return okPage('stock_history', result);
    },
  }),

  endpoint<Record<string, never>, { stock: unknown[] }>({
    method: 'POST',
    path: 'stock/list/',
    changes: [revisionNotes.listerNameToMaster],
    creates: true,
    summary: `Create (no id) or update (id) up to ${maxListItems} items; HTTP 207 with one result per item.`,
    scope: 'stock_w',
    // Each item is validated on its own (a bad item must not fail the others).
    body: Joi.object({ stock: list(Joi.any()).min(1).max(maxListItems).required() }),
    example: {
      stock: [
        { name: 'Enamel mug, blue', quantity: 10, price: '12.50' },
        { name: 'Enamel mug, red', quantity: 4, price: '12.50' },
      ],
    },
    bulk: { field: 'stock', item: stockListItemType },
    response: ['response'],
    async handle({ caller, body, request }) {
      return multiStatus(await saveStockList(caller, body.stock, request.log));
    },
  }),

  endpoint<StockParams>({
    method: 'GET',
    path: 'stock/{stock_id}/',
    changes: [revisionNotes.mktdSkuPrefix, revisionNotes.setTypeLowercase],
    summary: 'One stock item.',
    scope: 'stock_r',
    params: stockParams,
    select: { type: stockType(), alwaysSelected: ['id'] },
    response: ['stock'],
    async handle({ caller, params }) {
      const { stock, version } = await readStock(caller, params.stock_id);
      // The item's version: POST or DELETE stock/{stock_id}/ with If-Match of this tag changes only this state.
      return { ...ok({ stock }), headers: { ETag: `"${version}"` } };
    },
  }),

  endpoint<StockParams, { stock: StockInput }>({
    method: 'POST',
    path: 'stock/{stock_id}/',
    changes: [revisionNotes.mktdSkuPrefix, revisionNotes.listerNameToMaster],
    summary: 'Update a stock item: fields not sent are kept; lists are replaced, listers merged by lister_id.',
    scope: 'stock_w',
    params: stockParams,
    body: Joi.object({ stock: stockType().required() }),
    example: { stock: { quantity: 12 } },
    conditional:
      'the ETag of GET stock/{stock_id}/ (any select or format): the update applies only while the item is in the state that read saw (no sale, no other client since); otherwise 412 record_changed and nothing changes',
    response: ['stock_id', 'lister_id'],
    async handle({ caller, params, body, request }) {
      const result = await updateStockItem(caller, params.stock_id, body.stock, request.warnings, request.ifMatch);
      return ok({ stock_id: result.stockId, lister_id: result.listerIds });
    },
  }),

  endpoint<StockParams>({
    method: 'DELETE',
    path: 'stock/{stock_id}/',
    changes: [revisionNotes.mktdSkuPrefix],
    summary: 'Delete a stock item; its variants become independent items, its set links go.',
    scope: 'stock_w',
    params: stockParams,
    conditional:
      'the ETag of GET stock/{stock_id}/ (any select or format): the item is deleted only while it is in the state that read saw; otherwise 412 record_changed and nothing changes',
    response: [],
    async handle({ caller, params, request }) {
      await deleteStockItem(caller, params.stock_id, request.ifMatch);
      return ok();
    },
  }),

  endpoint<StockParams>({
    method: 'GET',
    path: 'stock/{stock_id}/history/',
    summary: 'Movements of one item with Stock_history_filter_type and pagination.',
    scope: 'stock_r',
    params: stockParams,
    search: itemHistorySearch,
    response: ['stock_history', 'next_min_id'],
    async handle({ caller, params, search }) {
      const result = await searchItemHistory(caller, params.stock_id, search);
      return okPage('stock_history', result);
    },
  }),

  endpoint<StockParams>({
    method: 'GET',
    path: 'stock/{stock_id}/description/',
    summary: 'All descriptions of the item.',
    scope: 'stock_r',
    params: stockParams,
    response: ['description'],
    async handle({ caller, params }) {
      return ok({ description: await listDescriptions(caller.accountId, params.stock_id) });
    },
  }),

  endpoint<StockParams, { description: DescriptionInput }>({
    method: 'POST',
    path: 'stock/{stock_id}/description/',
    creates: true,
    summary: 'Create a description; icon_id from GET system/stock/description/icon/.',
    scope: 'stock_w',
    params: stockParams,
    body: Joi.object({ description: stockDescriptionType.required() }),
    example: { description: { language_iso2: 'DE', short: 'Emaillebecher', long: '<p>Emaillebecher, 300 ml.</p>' } },
    response: ['description_id'],
    async handle({ caller, params, body }) {
      const id = await createDescription(caller, params.stock_id, body.description);
      return created({ description_id: id });
    },
  }),

  endpoint<DescriptionParams>({
    method: 'GET',
    path: 'stock/{stock_id}/description/{description_id}/',
    summary: 'One description of the item.',
    scope: 'stock_r',
    params: descriptionParams,
    response: ['description'],
    async handle({ caller, params }) {
      return ok({ description: await readDescription(caller.accountId, params.stock_id, params.description_id) });
    },
  }),

  endpoint<DescriptionParams, { description: DescriptionInput }>({
    method: 'POST',
    path: 'stock/{stock_id}/description/{description_id}/',
    summary: 'Update a description; fields not sent are kept.',
    scope: 'stock_w',
    params: descriptionParams,
    body: Joi.object({ description: stockDescriptionType.required() }),
    example: { description: { short: 'Emaillebecher, blau' } },
    response: ['description_id'],
    async handle({ caller, params, body }) {
      await updateDescription(caller, params.stock_id, params.description_id, body.description);
      return ok({ description_id: params.description_id });
    },
  }),

  endpoint<DescriptionParams>({
    method: 'DELETE',
    path: 'stock/{stock_id}/description/{description_id}/',
    summary: 'Delete a description.',
    scope: 'stock_w',
    params: descriptionParams,
    response: [],
    async handle({ caller, params }) {
      await deleteDescription(caller, params.stock_id, params.description_id);
      return ok();
    },
  }),

  endpoint({
    method: 'GET',
    path: 'stock/category/',
    summary: 'Own categories of one own portal (shop_g, market_i, shop); Category_filter_type with platform required.',
    scope: 'stock_r',
    search: ownCategorySearch,
    response: ['category', 'next_min_id'],
    async handle({ caller, search }) {
      const result = await ownCategoryRepository.search(caller, search);
      return okPage('category', result);
    },
  }),

  endpoint<Record<string, never>, { category: OwnCategoryInput[] }>({
    method: 'POST',
    path: 'stock/category/',
    creates: true,
    summary: 'Create own categories (one or a list); an existing platform/portal account/id is renamed or moved.',
    scope: 'stock_w',
    body: ownCategoryBody,
    example: { category: [{ platform: 'shop_g', id: '1', name: 'Kitchen' }] },
    response: [],
    async handle({ caller, body }) {
      const result = await saveOwnCategories(caller, caller.portalAccountId, body.category);
      return result.created ? created({}) : ok();
    },
  }),

  endpoint({
    method: 'DELETE',
    path: 'stock/category/',
    summary: 'Delete the own categories a Category_filter_type names (platform required).',
    scope: 'stock_w',
    search: ownCategorySearch,
    response: [],
    async handle({ caller, search }) {
      await ownCategoryRepository.delete(caller, search);
      return ok();
    },
  }),

  endpoint({
    method: 'GET',
    path: 'stock/folder/',
    summary: 'The stock folders in use, with their parent folders; each starts with /.',
    scope: 'stock_r',
    response: ['folder'],
    handle: async ({ caller }) => ok({ folder: await listFolders(caller.accountId) }),
  }),

  endpoint({
    method: 'GET',
    path: 'stock/shop_parameter/',
    summary: 'Shop parameters (tax_class or manufacturer) with Shop_parameter_filter_type (type required) and pagination.',
    scope: 'stock_r',
    search: shopParameterSearch,
    response: ['shop_parameter', 'next_min_id'],
    async handle({ caller, search }) {
      const result = await shopParameterRepository.search(caller, search);
      return okPage('shop_parameter', result);
    },
  }),

  endpoint<Record<string, never>, { shop_parameter: ShopParameterInput }>({
    method: 'POST',
    path: 'stock/shop_parameter/',
    creates: true,
    summary: "Create (no id) or update (id) a shop parameter of a portal account (default: the request's).",
    scope: 'stock_w',
    body: Joi.object({ shop_parameter: shopParameterType.required() }),
    example: { shop_parameter: { type: 'tax_class', name: 'standard', additional: '19' } },
    response: ['shop_parameter_id'],
    async handle({ caller, body }) {
      const result = await saveShopParameter(caller, caller.portalAccountId, body.shop_parameter);
      return result.created ? created({ shop_parameter_id: result.id }) : ok({ shop_parameter_id: result.id });
    },
  }),
];
