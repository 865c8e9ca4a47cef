/**
 * Lint step (npm run lint): no import cycle between files, none between the domains of lib/,
 * where each top-level folder (or file) of lib/ is one node, and no deep import across domains.
 * Each cycle is printed with the imports that make it, each deep import with the entry to use;
 * the exit code is 1 when there is one.
 *
 * Entries (issue 32): a domain folder lib/<domain>/ is entered through its index.ts, which
 * re-exports what other domains use (type-only names with `export type`), nothing more. From
 * another domain, and from server/, workers/, bin/ and config/, an import of any other file of
 * the folder is refused ("deep import"); a single-file domain (lib/log.ts) is its own entry.
 * Inside a folder, files import each other directly, never their own index.ts (which loads every
 * exported file of the folder, and could close a cycle at load time). Decision: test/, bench/,
 * sandbox/ and scripts/ may import a folder's files directly, because they test and measure its
 * internals; they are not scanned here. An entry loads every file it exports from, and what those
 * import: a process that needs one small thing of a big folder loads all of it (workers loaded
 * the operator pages, bull-board and express, for the metrics push, until that moved to
 * lib/metrics), so what every process needs belongs in a small, low folder.
 *
 * The layering that keeps the domains acyclic, lowest first; a domain imports only from lines
 * above its own (checked by hand against the imports when this list was written, not by this
 * script; ARCHITECTURE.md points here):
 *   log, clock                            logger; the time limits read (tests move it)
 *   secret                                credentials sealed at rest (config only)
 *   db, redis                             Knex and migrations; Redis connections
 *   errors                                the error table, domain errors, warnings, the 207 helper (its savepoints: db)
 *   access                                the permission scopes a caller holds; the Caller
 *   shutdown                              process shutdown
 *   metrics                               each process's Prometheus figures, pushed to Redis for the web
 *   http                                  endpoint declarations, schemas, search, envelope
 *   mail                                  mail transport
 *   queue                                 jobs, the outbox, GET job/{job_id}/
 *   portals                               portal adapters with their facts, the registry (no domain)
 *   portal-account                        a seller's portal accounts
 *   account                               seller accounts, their users (persons), passwords, counters
 *   reference, operator                   reference data; health and metrics
 *   auth, admin                           tokens, clients, authorize; the admin/ area
 *   customer, task, migrate               customers (made by orders); tasks; migrate + seed
 *   stock                                 stock items (shipping groups from admin)
 *   cia                                   CIA offers
 *   order                                 orders (link customers, take stock, reach portals)
 *   invoice                               invoices and credit notes of orders (PDF/A-3, Factur-X, XRechnung)
 *   bank, queue-recovery, portal-offer,   built on orders; recovery after Redis loses its data; offers listed and pushed;
 *   order-import, portal-connect          orders fetched from the real channels; eBay take-over and account deletion
 *   event                                 event handlers (orders, customers, stock, tasks, mail)
 * Breaking a cycle: move the thing to the domain that owns it, or put the contract between two
 * domains in the lower one (lib/stock/cia-input.ts declares what CIA reads of an item, and
 * lib/stock implements it, so stock never imports cia).
 */
import path from 'node:path';
import madge from 'madge';

const root = path.resolve(__dirname, '..');
const scanned = ['lib', 'server', 'workers', 'bin', 'config'];

/**
 * Domain imports allowed to close a cycle for now, each with its reason ("from -> to").
 * Keep it empty: an entry is a debt, not a design.
 */
const knownExceptions: Record<string, string> = {};

type Edges = Map<string, Map<string, string[]>>;

/** lib/order/order.service.ts -> order; lib/log.ts -> log; anything outside lib/ -> undefined. */
export function domainOf(file: string): string | undefined {
  const match = /^lib\/([^/]+?)(\.ts)?(\/|$)/.exec(file);
  return match?.[1];
}

/** lib/order/order.service.ts -> lib/order/index.ts; a single-file domain or outside lib/ -> undefined. */
export function entryOf(file: string): string | undefined {
  const match = /^lib\/([^/]+)\//.exec(file);
  return match ? `lib/${match[1]}/index.ts` : undefined;
}

/**
 * Imports that bypass a domain folder's entry: from another domain (or from server/, workers/,
 * bin/, config/) into a file of the folder other than its index.ts, and from inside a folder into
 * its own index.ts. One line each: file, import, what to use instead.
 */
export function entryViolations(files: Record<string, string[]>): string[] {
  const lines: string[] = [];
  for (const [file, imports] of Object.entries(files)) {
    const from = domainOf(file);
    for (const imported of imports) {
      const entry = entryOf(imported);
      if (!entry) continue;
      const to = domainOf(imported);
      if (from === to) {
        if (imported === entry && file !== entry) {
          lines.push(
            `own entry: ${file} imports ${imported}; import the file of lib/${to} itself (an entry imported from inside can close a cycle at load time)`,
          );
        }
      } else if (imported !== entry) {
        lines.push(`deep import: ${file} imports ${imported}; import lib/${to} (${entry}) instead, exporting the name there if it is not yet`);
      }
    }
  }
  return lines;
}

/** The domain graph: for each pair of domains, the file imports that link them. */
export function domainEdges(files: Record<string, string[]>): Edges {
  const edges: Edges = new Map();
  for (const [file, imports] of Object.entries(files)) {
    const from = domainOf(file);
    if (!from) continue;
    for (const imported of imports) {
      const to = domainOf(imported);
      if (!to || to === from || knownExceptions[`${from} -> ${to}`]) continue;
      if (!edges.has(from)) edges.set(from, new Map());
      const byTarget = edges.get(from)!;
      byTarget.set(to, [...(byTarget.get(to) ?? []), `${file} -> ${imported}`]);
    }
  }
  return edges;
}

/** Strongly connected components of more than one domain (Tarjan): each holds at least one cycle. */
export function cyclicGroups(edges: Edges): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const groups: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    for (const next of edges.get(node)?.keys() ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (stack.includes(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const group: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        group.push(member);
      } while (member !== node);
      if (group.length > 1) groups.push(group.sort());
    }
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return groups;
}

/** The shortest path from one domain to another inside their group (breadth first). */
function shortestPath(from: string, to: string, group: string[], edges: Edges): string[] {
  const cameFrom = new Map<string, string>([[from, from]]);
  const queue = [from];
  while (queue.length && !cameFrom.has(to)) {
    const node = queue.shift()!;
    for (const next of edges.get(node)?.keys() ?? []) {
      if (group.includes(next) && !cameFrom.has(next)) {
        cameFrom.set(next, node);
        queue.push(next);
      }
    }
  }
  const path = [to];
  while (path[0] !== from) path.unshift(cameFrom.get(path[0]!)!);
  return path;
}

/**
 * One cycle for each import between two domains of a group (that import, then the shortest way
 * back), without repeats; each step lists the file imports that make it.
 */
export function describeCycles(group: string[], edges: Edges): string[] {
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const from of group) {
    for (const to of edges.get(from)?.keys() ?? []) {
      if (!group.includes(to)) continue;
      const cycle = [from, ...shortestPath(to, from, group, edges).slice(0, -1)];
      const start = cycle.indexOf([...cycle].sort()[0]!);
      const key = [...cycle.slice(start), ...cycle.slice(0, start)].join(' -> ');
      if (seen.has(key)) continue;
      seen.add(key);
      lines.push(`domain cycle: lib/${[...cycle, cycle[0]].join(' -> lib/')}`);
      cycle.forEach((step, i) => {
        for (const imported of edges.get(step)!.get(cycle[(i + 1) % cycle.length]!)!) lines.push(`    ${imported}`);
      });
    }
  }
  return lines;
}

async function main(): Promise<void> {
  const graph = await madge(
    scanned.map((d) => path.join(root, d)),
    {
      baseDir: root,
      fileExtensions: ['ts'],
      tsConfig: path.join(root, 'tsconfig.json'),
    },
  );
  const problems: string[] = [];
  for (const cycle of graph.circular()) problems.push(`file cycle: ${[...cycle, cycle[0]].join(' -> ')}`);
  const edges = domainEdges(graph.obj());
  for (const group of cyclicGroups(edges)) {
    problems.push(...describeCycles(group, edges));
  }
  const deep = entryViolations(graph.obj());
  if (problems.length) {
    console.error(`Import cycles (see the layering at the top of scripts/check-cycles.ts):\n${problems.join('\n')}`);
    process.exitCode = 1;
  }
  if (deep.length) {
    console.error(`Imports past a domain's entry (see "Entries" at the top of scripts/check-cycles.ts):\n${deep.join('\n')}`);
    process.exitCode = 1;
  }
  if (problems.length || deep.length) return;
  console.log(`check-cycles: no import cycles, every domain entered through its index.ts (${Object.keys(graph.obj()).length} files)`);
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });
}
