/**
 * What the sandbox's Amazon reads from Amazon's published contracts (../shared/contracts/ebay-amazon/,
 * SOURCES.md): the usage plan of each operation (the "Usage Plan" table of its description:
 * rate per second and burst), whether the operation is deprecated, and the removal date the
 * changelog names for the deprecated Orders v0 operations.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { EventEmitter } from 'node:events';
import type express from 'express';
import { contractGate, mountContractControls, violationsOf } from './contract/contract-gate';
import Ajv, { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { contractFolder, readContract } from './contract/contract-files';
import type { ContractProblem } from './contract/openapi-contract';
import { OpenApiContract } from './contract/openapi-contract';

/** The Amazon contract files the sandbox plays (Swagger 2.0). */
export const amazonContractFiles = [
  'orders_2026-01-01.json',
  'ordersV0.json',
  'listingsItems_2021-08-01.json',
  'feeds_2021-06-30.json',
  'tokens_2021-03-01.json',
];

export const amazonContractFolder = 'ebay-amazon';

/** The folder of the vendors' contracts beside the repository (sandbox/contract: a missing folder stops the sandbox naming it). */
export const amazonContractsDir = (): string => contractFolder(amazonContractFolder);

let contracts: OpenApiContract[] | undefined;

/** The contracts whose operations the sandbox's Amazon serves, read once per process. */
export function amazonContracts(): OpenApiContract[] {
  contracts ??= ['orders_2026-01-01.json', 'ordersV0.json', 'listingsItems_2021-08-01.json', 'feeds_2021-06-30.json'].map((file) =>
    OpenApiContract.load(amazonContractFolder, file),
  );
  return contracts;
}

/**
 * SP-API's error body of a request that breaks the contract: 400 with ErrorList, code
 * InvalidInput (the contracts' 400 answers: "Request has missing or invalid parameters and cannot
 * be parsed"); a path no contract has: 404 NotFound (405: the path with another method).
 */
export function amazonContractError(problems: ContractProblem[], context: { status: number }) {
  if (context.status !== 400)
    return {
      errors: [{ code: context.status === 405 ? 'MethodNotAllowed' : 'NotFound', message: problems[0]?.message ?? 'Resource not found.', details: '' }],
    };
  return { errors: problems.map((p) => ({ code: 'InvalidInput', message: `${p.in} ${p.name}: ${p.message}`, details: p.name })) };
}

/** The check in front of the sandbox's SP-API routes (after the access token's), and GET /_sandbox/violations. */
export function amazonContractGate(app: express.Express, state: { events: EventEmitter }) {
  mountContractControls(app, state);
  return contractGate({ vendor: 'amazon', contracts: amazonContracts(), log: violationsOf(state), format: amazonContractError });
}

export interface AmazonOperation {
  operationId: string;
  method: string;
  /** The path template, e.g. /orders/2026-01-01/orders/{orderId}. */
  template: string;
  pattern: RegExp;
  rate: number;
  burst: number;
  deprecated: boolean;
}

/**
 * "If you are using the Orders API v0, you must migrate to Orders API v2026-01-01 by March 27,
 * 2027" (SP-API changelog, "New: Introducing the Orders API v2026-01-01"), for getOrders,
 * getOrder, getOrderBuyerInfo, getOrderAddress, getOrderItems and getOrderItemsBuyerInfo; "Calls
 * to deprecated SP-API resources will continue to be successful until their removal date. After
 * the removal date, calls will fail" (SP-API deprecation reminders).
 */
export const ordersV0RemovalDate = '2027-03-27';

interface SwaggerOperation {
  operationId?: string;
  description?: string;
  deprecated?: boolean;
}

/** The usage plan table of an operation's description: | rate | burst |. */
function usagePlan(description: string | undefined): { rate: number; burst: number } | undefined {
  const m = /\|\s*Rate \(requests per second\)\s*\|\s*Burst\s*\|\s*\|[-\s|]+\|\s*([\d.]+)\s*\|\s*(\d+)\s*\|/.exec(description ?? '');
  return m ? { rate: Number(m[1]), burst: Number(m[2]) } : undefined;
}

/**
 * Operations the sandbox plays whose contract file is not among the provided ones, with the usage
 * plan Amazon documents for them: the Sellers API v1's getMarketplaceParticipations (its API
 * reference, "Usage plan": rate 0.016 requests per second, burst 15), which the consent reads.
 */
const documentedOperations: AmazonOperation[] = [
  {
    operationId: 'getMarketplaceParticipations',
    method: 'GET',
    template: '/sellers/v1/marketplaceParticipations',
    pattern: /^\/sellers\/v1\/marketplaceParticipations$/,
    rate: 0.016,
    burst: 15,
    deprecated: false,
  },
];

let loaded: AmazonOperation[] | undefined;

/** Every operation of the Amazon contract files with its usage plan (read once), and the documented ones above. */
export function amazonOperations(): AmazonOperation[] {
  if (loaded) return loaded;
  const dir = amazonContractsDir();
  const operations: AmazonOperation[] = [];
  for (const file of amazonContractFiles) {
    const full = path.join(dir, file);
    if (!fs.existsSync(full)) throw new Error(`the sandbox cannot start: the contract file ${full} is missing`);
    const spec = JSON.parse(fs.readFileSync(full, 'utf8')) as { paths: Record<string, Record<string, SwaggerOperation>> };
    for (const [template, methods] of Object.entries(spec.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        if (method === 'parameters' || !op.operationId) continue;
        const plan = usagePlan(op.description) ?? { rate: 1, burst: 1 };
        const pattern = new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`);
        operations.push({ operationId: op.operationId, method: method.toUpperCase(), template, pattern, ...plan, deprecated: op.deprecated === true });
      }
    }
  }
  loaded = [...operations, ...documentedOperations];
  return loaded;
}

/** The operation a request is, by method and path. */
export function amazonOperationOf(method: string, requestPath: string): AmazonOperation | undefined {
  return amazonOperations().find((o) => o.method === method.toUpperCase() && o.pattern.test(requestPath));
}

let feedSchema: ValidateFunction | undefined;

/**
 * The JSON_LISTINGS_FEED document's schema (listings-feed-schema-v2.json, JSON Schema draft-07),
 * read once: Amazon validates an uploaded feed against it before processing its messages.
 */
export function listingsFeedSchema(): ValidateFunction {
  if (feedSchema) return feedSchema;
  const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false, logger: false });
  addFormats(ajv);
  feedSchema = ajv.compile(readContract(amazonContractFolder, 'listings-feed-schema-v2.json'));
  return feedSchema;
}

let reportSchema: ValidateFunction | undefined;

/**
 * The processing report's problems by its schema (listings-feed-processing-report-schema-v2.json):
 * the sandbox holds its own reports to it, so that the adapter reads what Amazon's reports may
 * hold and nothing they cannot (a report that breaks it is a sandbox defect, recorded as such).
 */
export function processingReportProblems(report: unknown): ContractProblem[] {
  if (!reportSchema) {
    const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false, logger: false });
    addFormats(ajv);
    reportSchema = ajv.compile(readContract(amazonContractFolder, 'listings-feed-processing-report-schema-v2.json'));
  }
  if (reportSchema(report)) return [];
  return (reportSchema.errors ?? []).map((e) => ({ in: 'response', name: e.instancePath || '/', message: e.message ?? 'is invalid' }));
}

/**
 * A feed document's schema problems as processing report issues: one about a message carries its
 * messageId and sku (that message is invalid, the others go on); one about the document itself
 * (header, the messages array) has none ("Not provided if the error is not related to a message
 * (e.g. feed formatting issue)", the report schema's messageId), and refuses the whole feed.
 */
export function feedSchemaIssues(doc: unknown): { messageId?: number; sku?: string; code: string; severity: 'ERROR'; message: string }[] {
  const validate = listingsFeedSchema();
  if (validate(doc)) return [];
  const messages = (doc as { messages?: unknown[] } | null)?.messages;
  const seen = new Set<string>();
  const issues: { messageId?: number; sku?: string; code: string; severity: 'ERROR'; message: string }[] = [];
  for (const e of validate.errors ?? []) {
    const at = /^\/messages\/(\d+)(\/.*)?$/.exec(e.instancePath);
    const message = Array.isArray(messages) && at ? (messages[Number(at[1])] as { messageId?: unknown; sku?: unknown } | undefined) : undefined;
    const where = at ? (at[2] ?? '') : e.instancePath;
    const text = `${where || '/'} ${e.message ?? 'is invalid'}${e.keyword === 'enum' ? ` (${(e.params as { allowedValues: unknown[] }).allowedValues.join(', ')})` : ''}${e.keyword === 'additionalProperties' ? ` (${(e.params as { additionalProperty: string }).additionalProperty})` : ''}`;
    const id = message && Number.isInteger(message.messageId) ? (message.messageId as number) : undefined;
    const key = `${id ?? ''} ${text}`;
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push({
      ...(id !== undefined ? { messageId: id } : {}),
      ...(id !== undefined && typeof message?.sku === 'string' && message.sku ? { sku: message.sku } : {}),
      code: '4000001',
      severity: 'ERROR',
      message: `The feed does not match the JSON listings feed schema: ${text}`,
    });
  }
  return issues;
}
