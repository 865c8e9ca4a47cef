/**
 * lib/reference, the one way in from other domains: reference data.
 * scripts/check-cycles.ts refuses imports of this folder's other files from outside it;
 * README.md beside this file has the decisions.
 */
export { categorySearch, globalCategoryRepository } from './category';
export { countryRepository, countrySearch, countryType } from './country';
export { countryOfIso3 } from './country-codes';
export type { CountryCodes } from './country-codes';
export { currencyRepository } from './currency';
export { descriptionIconRepository } from './description-icon.repository';
export { findGender } from './gender';
export { listPaymentMethods, paymentMethodRepository } from './payment-method.repository';
export { listScopes } from './scope';
export { seedReferenceData } from './seed';
export { stockConditionRepository } from './stock-condition.repository';
