/**
 * The contract check in front of a vendor's sandbox routes: every request is matched to its
 * operation in the vendor's contracts and checked (openapi-contract.ts); a request that breaks
 * the contract is answered as the vendor answers it (the vendor's error formatter, 400) and
 * recorded, so that a test can assert there were none (GET /_sandbox/violations?vendor=).
 */
import type { EventEmitter } from 'node:events';
import type express from 'express';
import type { NextFunction, Request, Response } from 'express';
import type { ContractProblem, Operation, OpenApiContract } from './openapi-contract';

export interface ContractViolation {
  at: string;
  vendor: string;
  /** The contract's title and version, when the request matched one of its operations. */
  contract: string | null;
  operationId: string | null;
  method: string;
  path: string;
  problems: ContractProblem[];
  /** What the sandbox answered. */
  status: number;
  /** request: the client broke the contract; response: the sandbox's own answer did (a sandbox defect). */
  kind?: 'request' | 'response';
}

/** The vendor's error body of a contract violation (eBay's errors[], Amazon's errors[] ...). */
export type VendorErrorFormatter = (problems: ContractProblem[], context: { contract?: OpenApiContract; operation?: Operation; status: number }) => unknown;

/** The violations recorded since the sandbox started or was last reset. */
export class ViolationLog {
  readonly list: ContractViolation[] = [];

  add(violation: ContractViolation): void {
    this.list.push(violation);
    if (this.list.length > 10000) this.list.splice(0, this.list.length - 10000);
  }

  of(vendor?: string): ContractViolation[] {
    return this.list.filter((v) => !vendor || v.vendor === vendor);
  }

  clear(): void {
    this.list.length = 0;
  }
}

const logs = new WeakMap<object, ViolationLog>();

/** The violation log of a sandbox state (one per state; emptied when the state is reset). */
export function violationsOf(state: { events: EventEmitter }): ViolationLog {
  let log = logs.get(state);
  if (!log) {
    const created = new ViolationLog();
    state.events.on('reset', () => created.clear());
    logs.set(state, created);
    log = created;
  }
  return log;
}

const mounted = new WeakSet<object>();

/** GET /_sandbox/violations?vendor=: the recorded violations (mounted once per app, whichever vendor asks first). */
export function mountContractControls(app: express.Express, state: { events: EventEmitter }): void {
  if (mounted.has(app)) return;
  mounted.add(app);
  const log = violationsOf(state);
  app.get('/_sandbox/violations', (req: Request, res: Response) => {
    res.json(log.of(typeof req.query.vendor === 'string' ? req.query.vendor : undefined));
  });
}

export interface GateOptions {
  vendor: string;
  contracts: OpenApiContract[];
  log: ViolationLog;
  format: VendorErrorFormatter;
}

/**
 * The Express middleware: a request no contract has an operation for is answered 404 (405 when
 * the path exists with other methods), one that breaks its operation 400, both in the vendor's
 * shape and recorded; a good one goes on with res.locals.operation set to its operationId.
 */
export function contractGate(options: GateOptions) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const path = req.originalUrl.split('?')[0]!;
    const request = {
      method: req.method,
      path,
      query: req.query as Record<string, unknown>,
      header: (name: string) => req.get(name),
      body: req.body as unknown,
    };
    let contract: OpenApiContract | undefined;
    let matched: ReturnType<OpenApiContract['match']>;
    for (const c of options.contracts) {
      matched = c.match(req.method, path);
      if (matched) {
        contract = c;
        break;
      }
    }
    const problems = contract ? contract.check(request, matched) : options.contracts[0]!.check(request, undefined);
    if (problems.length === 0) {
      const operation = matched!.operation;
      res.locals.operation = operation.operationId;
      // The sandbox's answer is held to the contract too: an emulator that answers what the
      // vendor does not (a field, a type, a status) lets the adapter agree with it instead.
      const record = (wrong: ContractProblem[]) =>
        options.log.add({
          at: new Date().toISOString(),
          vendor: options.vendor,
          contract: `${contract!.title} ${contract!.version}`,
          operationId: operation.operationId,
          method: req.method,
          path,
          problems: wrong,
          status: res.statusCode,
          kind: 'response',
        });
      let checked = false;
      const json = res.json.bind(res);
      res.json = (body: unknown) => {
        checked = true;
        // A fault a test scripted (POST /_sandbox/faults) answers what it was told to.
        if (res.locals.scripted === true) return json(body);
        const wrong = contract!.checkResponse(operation, res.statusCode, body);
        if (wrong.length > 0) record(wrong);
        return json(body);
      };
      // An answer without a JSON body (204, an empty 200): its status must still be documented.
      const end = res.end.bind(res) as (...args: unknown[]) => Response;
      res.end = ((...args: unknown[]) => {
        if (!checked && res.locals.scripted !== true) {
          checked = true;
          const wrong = contract!.checkResponse(operation, res.statusCode, undefined);
          if (wrong.length > 0) record(wrong);
        }
        return end(...args);
      }) as Response['end'];
      next();
      return;
    }
    const status = contract ? 400 : options.contracts.some((c) => c.knows(path)) ? 405 : 404;
    options.log.add({
      at: new Date().toISOString(),
      vendor: options.vendor,
      contract: contract ? `${contract.title} ${contract.version}` : null,
      operationId: matched?.operation.operationId ?? null,
      method: req.method,
      path,
      problems,
      status,
      kind: 'request',
    });
    res.status(status).json(options.format(problems, { contract, operation: matched?.operation, status }));
  };
}
