/**
 * What the sandbox's Amazon reads from Amazon's published contracts (../shared/contracts/ebay-amazon/,
 * SOURCES.md): the usage plan of each operation (the "Usage Plan" table of its description:
 * rate per second and burst), whether the operation is deprecated, and the removal date the
 * changelog names for the deprecated Orders v0 operations.
 */
import fs from 'node:fs';
import path from 'node:path';

/** The Amazon contract files the sandbox plays (Swagger 2.0). */
export const amazonContractFiles = [
  'orders_2026-01-01.json',
  'ordersV0.json',
  'listingsItems_2021-08-01.json',
  'feeds_2021-06-30.json',
  'tokens_2021-03-01.json',
];

/** The folder of the vendors' contracts beside the repository (SANDBOX_CONTRACTS_DIR overrides the root). */
export function amazonContractsDir(): string {
  const root = process.env.SANDBOX_CONTRACTS_DIR ? path.resolve(process.env.SANDBOX_CONTRACTS_DIR) : path.resolve(__dirname, '../../shared/contracts');
  const dir = path.join(root, 'ebay-amazon');
  if (!fs.existsSync(dir))
    throw new Error(
      `the sandbox cannot start: the contract folder ${dir} is missing (Amazon's published contracts are read from ../shared/contracts/ebay-amazon/; see its SOURCES.md)`,
    );
  return dir;
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

let loaded: AmazonOperation[] | undefined;

/** Every operation of the Amazon contract files with its usage plan (read once). */
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
  loaded = operations;
  return operations;
}

/** The operation a request is, by method and path. */
export function amazonOperationOf(method: string, requestPath: string): AmazonOperation | undefined {
  return amazonOperations().find((o) => o.method === method.toUpperCase() && o.pattern.test(requestPath));
}
