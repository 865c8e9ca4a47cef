/**
 * lib/stock, the one way in from other domains: stock items.
 * scripts/check-cycles.ts refuses imports of this folder's other files from outside it;
 * README.md beside this file has the decisions.
 */
export type { CiaInput, LoadCiaInputs } from './cia-input';
export { forgetEventTargets, provideEventTargetQueries } from './event-targets';
export { provideEbayListingQueries } from './stock-ebay-sku';
export type { EbayListingQueries } from './stock-ebay-sku';
export type { EventTargetQueries } from './event-targets';
export { ownCategoryBody, ownCategoryRepository, ownCategorySearch, saveOwnCategories } from './stock-category';
export type { OwnCategoryInput } from './stock-category';
export { existingAmong, stockIdsByChannelSku, variationMainsAmong } from './stock-channel-sku';
export { loadCiaInput, loadCiaInputs } from './stock-cia.repository';
export { createStockItem } from './stock-create.service';
export { stockDescriptionType } from './stock-description';
export type { DescriptionInput } from './stock-description';
export { createDescription, deleteDescription, listDescriptions, readDescription, updateDescription } from './stock-description.service';
export { allHistorySearch, itemHistorySearch, stockHistoryRepository } from './stock-history.repository';
export { maxListItems, saveStockList } from './stock-list.service';
export { stockPortalRepository } from './stock-portal.repository';
export { queueCiaAdjust } from './stock-available.repository';
export { adjustStockQuantities } from './stock-quantity';
export type { StockChange } from './stock-quantity';
export { matchAlignRefs, matchStockRefs, stockIdOf } from './stock-ref';
export type { SetPart } from './stock-ref';
export { stockSearch } from './stock-search.repository';
export { stockTaxes } from './stock-tax';
export { saveShopParameter, shopParameterRepository, shopParameterSearch, shopParameterType } from './stock-shop-parameter';
export type { ShopParameterInput } from './stock-shop-parameter';
export { deleteStockItem, listFolders, readStock, resolvePathStockId, searchItemHistory, searchStock, updateStockItem } from './stock.service';
export { stockListItemType, stockType } from './stock.type';
export type { StockInput } from './stock.type';
