/**
 * The tracking companies the sandbox's Shopify store knows: the list of FulfillmentTrackingInfo.company
 * in the contract (admin_schema_2025-01.json, "### Supported tracking companies"), read from the
 * schema's own description, never copied. FulfillmentTrackingInput.company takes any text (the
 * schema refuses none): "If you specify a tracking company name from the list, Shopify will
 * automatically build tracking URLs for all provided tracking numbers ... Send the tracking company
 * name exactly as written in the list (capitalization matters)". So the sandbox keeps what it is
 * given and records whether the name is a listed one (compared exactly), which a test asserts.
 */
import type { GraphQLObjectType, GraphQLSchema } from 'graphql';

/** The country of the sandbox's stores (ours: EUR stores with gross prices, Kontor's German sellers): its list counts beside the one for any country. */
const storeCountry = 'Germany';

const known = new WeakMap<GraphQLSchema, Set<string>>();

/**
 * The names listed "for shops located in any country" (one `* Name` a line) and those "displayed
 * for shops located in specific countries" for `country` (`* **Germany**: A, B, C`).
 */
export function listedTrackingCompanies(schema: GraphQLSchema, country = storeCountry): Set<string> {
  const cached = country === storeCountry ? known.get(schema) : undefined;
  if (cached) return cached;
  const description = (schema.getType('FulfillmentTrackingInfo') as GraphQLObjectType).getFields().company!.description ?? '';
  const [anyCountry = '', byCountry = ''] = description.split(/The following tracking companies are displayed for shops located in specific countries:/);
  const names = new Set(
    anyCountry
      .split('\n')
      .map((l) => /^\s*\* (?!\*\*)(.+?)\s*$/.exec(l)?.[1])
      .filter((n): n is string => Boolean(n)),
  );
  const line = byCountry.split('\n').find((l) => l.includes(`**${country}**:`));
  for (const n of (line?.split(':')[1] ?? '').replace(/\.\s*$/, '').split(',')) if (n.trim()) names.add(n.trim());
  if (country === storeCountry) known.set(schema, names);
  return names;
}

/** Whether Shopify knows the tracking company by that name, exactly as listed. */
export const companyRecognised = (schema: GraphQLSchema, company: string): boolean => listedTrackingCompanies(schema).has(company);
