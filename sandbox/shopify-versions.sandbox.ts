/**
 * The sandbox store's Admin API versions after 2025-01 (2026-01 to 2026-10, config/channel-apps.ts
 * shopifyApiVersions). **No schema file of those versions is available** (../shared/contracts/
 * shopify/SOURCES.md: none could be saved), so the sandbox plays them as the 2025-01 schema amended
 * by what Shopify's changelog says changed in what Kontor sends, and nothing else:
 * - 2026-01 (https://shopify.dev/changelog/compare-and-swap-redesign-for-inventory-set-quantities):
 *   InventoryQuantityInput.changeFromQuantity (Int) added; compareQuantity and ignoreCompareQuantity
 *   deprecated; InventorySetQuantitiesUserErrorCode CHANGE_FROM_QUANTITY_STALE added; the
 *   `@idempotent(key: String!)` directive (https://shopify.dev/changelog/adding-idempotency-for-inventory-adjustments-and-refund-mutations).
 * - 2026-04 (https://shopify.dev/changelog/finalizing-compare-and-swap-redesign-for-inventory-set-quantities):
 *   compareQuantity and ignoreCompareQuantity removed (a document or variables naming them are
 *   refused as any unknown field), and at runtime (`versionProblem`) an inventorySetQuantities
 *   whose quantities lack changeFromQuantity, or without @idempotent
 *   (https://shopify.dev/changelog/making-idempotency-mandatory-for-inventory-adjustments-and-refund-mutations),
 *   is refused: "calling these mutations without passing in null or passing in the current actual
 *   quantity will result in an error at runtime" (the changelog gives no shape: a top-level error,
 *   wording ours).
 * Anything else those versions changed, added or removed is not played: a document valid here may
 * still be refused by Shopify.
 */
import { FieldNode, GraphQLSchema, IntrospectionQuery, Kind, OperationDefinitionNode } from 'graphql';
import { getArgumentValues } from 'graphql/execution/values';
import type { ShopifyApiVersion } from '../config/channel-apps';

type Introspected = IntrospectionQuery['__schema'];
type Type = Introspected['types'][number];
type Json = Record<string, unknown>;

const intType = { kind: 'SCALAR', name: 'Int', ofType: null };
const requiredString = { kind: 'NON_NULL', name: null, ofType: { kind: 'SCALAR', name: 'String', ofType: null } };

/** A version's changes to one type of the 2025-01 introspection (a copy; the base is left as it is). */
function amendType(t: Type, version: ShopifyApiVersion): Type {
  const removed = version >= '2026-04';
  const old = (name: string) => name === 'compareQuantity' || name === 'ignoreCompareQuantity';
  const deprecate = (f: Json) => (old(String(f.name)) ? { ...f, isDeprecated: true, deprecationReason: 'Use changeFromQuantity instead.' } : f);
  if (t.name === 'InventoryQuantityInput' && 'inputFields' in t) {
    const fields = (t.inputFields as unknown as Json[]).filter((f) => !(removed && old(String(f.name)))).map(deprecate);
    const changeFrom = {
      name: 'changeFromQuantity',
      description: 'The quantity the caller expects the item to hold; null skips the check.',
      type: intType,
      defaultValue: null,
    };
    return { ...t, inputFields: [...fields, changeFrom] } as unknown as Type;
  }
  if (t.name === 'InventorySetQuantitiesInput' && 'inputFields' in t)
    return { ...t, inputFields: (t.inputFields as unknown as Json[]).filter((f) => !(removed && old(String(f.name)))).map(deprecate) } as unknown as Type;
  if (t.name === 'InventorySetQuantitiesUserErrorCode' && 'enumValues' in t) {
    const stale = {
      name: 'CHANGE_FROM_QUANTITY_STALE',
      description: 'The changeFromQuantity value does not match persisted value.',
      isDeprecated: false,
      deprecationReason: null,
    };
    return { ...t, enumValues: [...(t.enumValues as unknown as Json[]), stale] } as unknown as Type;
  }
  return t;
}

/** The 2025-01 introspection amended to a later version (the changelog's changes listed above); 2025-01 as it is. */
export function versionIntrospection(base: IntrospectionQuery, version: ShopifyApiVersion): IntrospectionQuery {
  if (version === '2025-01') return base;
  const s = base.__schema;
  const idempotent = {
    name: 'idempotent',
    description: 'Makes the mutation idempotent: a request repeated with the same key is done once.',
    locations: ['FIELD'],
    args: [{ name: 'key', description: 'The idempotency key (a UUID is recommended).', type: requiredString, defaultValue: null }],
    isRepeatable: false,
  };
  return {
    __schema: {
      ...s,
      types: s.types.map((t) => amendType(t, version)),
      directives: [...s.directives, idempotent as unknown as Introspected['directives'][number]],
    },
  };
}

/**
 * A request the version refuses at runtime (2026-04 and later, see above), else undefined: an
 * inventorySetQuantities without @idempotent, or with a quantity that does not give changeFromQuantity.
 */
export function versionProblem(
  version: ShopifyApiVersion,
  schema: GraphQLSchema,
  op: OperationDefinitionNode,
  variables: Record<string, unknown>,
): string | undefined {
  if (version < '2026-04' || op.operation !== 'mutation') return undefined;
  const field = schema.getMutationType()!.getFields().inventorySetQuantities!;
  const sets = op.selectionSet.selections.filter((n): n is FieldNode => n.kind === Kind.FIELD && n.name.value === 'inventorySetQuantities');
  for (const node of sets) {
    if (!node.directives?.some((d) => d.name.value === 'idempotent'))
      return `inventorySetQuantities requires the @idempotent directive with an idempotency key as of API version ${version}.`;
    const { input } = getArgumentValues(field, node, variables) as { input: { quantities: Json[] } };
    const missing = input.quantities.findIndex((q) => !Object.prototype.hasOwnProperty.call(q, 'changeFromQuantity'));
    if (missing >= 0)
      return `inventorySetQuantities requires changeFromQuantity on each quantity as of API version ${version} (the expected current quantity, or null to skip the check): quantities[${missing}] has none.`;
  }
  return undefined;
}
