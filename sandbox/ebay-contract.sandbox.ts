/**
 * eBay's published contracts as the sandbox eBay checks them (sandbox/contract): Inventory
 * 1.18.0, Fulfillment v1.20.7 and Feedback v1.0.0 from ../shared/contracts/ebay-amazon/, and
 * eBay's error body for a request that breaks them.
 */
import { contractGate, mountContractControls, violationsOf } from './contract/contract-gate';
import type { ContractProblem, Erratum } from './contract/openapi-contract';
import { OpenApiContract } from './contract/openapi-contract';
import type express from 'express';
import type { EventEmitter } from 'node:events';

export const ebayContractFolder = 'ebay-amazon';
export const ebayContractFiles = ['sell_inventory_v1_oas3.json', 'sell_fulfillment_v1_oas3.json', 'commerce_feedback_v1_beta_oas3.json'] as const;

/** Where the file contradicts eBay's own documentation (SOURCES.md, "Where the references disagree"). */
const errata: Erratum[] = [
  {
    pointer: '/components/schemas/Product/properties/aspects',
    schema: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } },
    why: 'Product.aspects is typed string in the OAS file but documented and used as a map of aspect names to value arrays',
  },
  {
    // The same erratum for an inventory item group's common aspects: its description gives the example
    // "aspects": { "pattern": ["solid"], "sleeves": ["short"] }.
    pointer: '/components/schemas/InventoryItemGroup/properties/aspects',
    schema: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } },
    why: 'InventoryItemGroup.aspects is typed string in the OAS file but documented as a map of aspect names to value arrays',
  },
];

let loaded: OpenApiContract[] | undefined;

/** The three contracts, read once per process (a missing folder or file stops the sandbox with its name). */
export function ebayContracts(): OpenApiContract[] {
  loaded ??= ebayContractFiles.map((file) => OpenApiContract.load(ebayContractFolder, file, { errata }));
  return loaded;
}

/**
 * eBay's error container for a contract violation. Inventory: 25709 "Invalid request. Invalid
 * value for field" (its error tables); Fulfillment and Feedback have no general field error in
 * their tables, so the sandbox answers 2004 "Invalid request" in their domain (its own choice).
 * A path no contract has: 404 errorId 2002 "Resource not found" (eBay's common errors).
 */
export function ebayContractError(problems: ContractProblem[], context: { contract?: OpenApiContract; status: number }) {
  const title = context.contract?.title ?? '';
  const domain = /inventory/i.test(title) ? 'API_INVENTORY' : /fulfil/i.test(title) ? 'API_FULFILLMENT' : /feedback/i.test(title) ? 'API_FEEDBACK' : 'ACCESS';
  if (context.status !== 400)
    return { errors: [{ errorId: 2002, domain: 'ACCESS', category: 'REQUEST', message: 'Resource not found', longMessage: problems[0]?.message }] };
  const errorId = domain === 'API_INVENTORY' ? 25709 : 2004;
  return {
    errors: problems.map((p) => ({
      errorId,
      domain,
      category: 'REQUEST',
      message: `Invalid request. Invalid value for field ${p.name || 'body'}. ${p.message}`,
      longMessage: p.message,
      parameters: [{ name: p.in === 'body' ? 'field' : p.in, value: p.name }],
    })),
  };
}

/** The check in front of eBay's routes, and GET /_sandbox/violations. */
export function ebayContractGate(app: express.Express, state: { events: EventEmitter }) {
  mountContractControls(app, state);
  return contractGate({ vendor: 'ebay', contracts: ebayContracts(), log: violationsOf(state), format: ebayContractError });
}
