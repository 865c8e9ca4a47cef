/**
 * Bank statement import and matching: a 10,000-entry CAMT.053 statement (camt.053.001.08, one
 * payment per entry, written the ways payers write: two in five name the order id, one the order
 * number behind "Bestellung" beside a BIC with digits, one only "Rechnung <number>", one nothing
 * but the payer's name and the amount) posted to POST bank/statement/ against 100,000 open
 * orders of one seller (BENCH_BANK_SHAPE=order_id: every entry names its order id, issue 14's
 * statement), then matched as the bank worker's bank.match job does (matchRange, in
 * this process). Baseline in the same run: a bare multi-row INSERT of the same 10,000 transfer
 * rows. Aim: stored and matched in under 10 s, within 5x of the bare insert. The orders are
 * generated once (INSERT ... SELECT generate_series) and set unpaid again before each run.
 * BENCH_BANK_COLD=1 leaves out the warm-up import (warmUp below): the first statement after a start.
 */
import type { BenchCase } from './cases';
import { matchRange } from '../lib/bank/bank-match.service';
import { db } from '../lib/db/knex';
import { benchBase, benchDone, benchSeller, time } from './order-support';

const orderCount = 100000;
const entryCount = 10000;

/**
 * Buyers' names as a German shop's are: 40 first names by 50 surnames (umlauts and ß among them),
 * 2,000 people, each owing many orders over the 997 amounts; the same name paying the same amount
 * twice is rare, as in life. (Every buyer named "Buyer <n>" made the payers' longest word the same
 * for all, so name-and-amount found every order owing an amount a candidate.)
 */
const firstNames = [
  'Anna',
  'Ben',
  'Clara',
  'David',
  'Emma',
  'Felix',
  'Greta',
  'Hannah',
  'Ida',
  'Jonas',
  'Karl',
  'Lea',
  'Max',
  'Nina',
  'Oskar',
  'Paula',
  'Quirin',
  'Rosa',
  'Sophie',
  'Till',
  'Ute',
  'Vera',
  'Walter',
  'Xaver',
  'Yvonne',
  'Zoë',
  'Jürgen',
  'Björn',
  'Sören',
  'Renée',
  'Lukas',
  'Marie',
  'Noah',
  'Mia',
  'Elias',
  'Lina',
  'Paul',
  'Emilia',
  'Henry',
  'Frieda',
];
const surnames = [
  'Müller',
  'Schmidt',
  'Schneider',
  'Fischer',
  'Weber',
  'Meyer',
  'Wagner',
  'Becker',
  'Schulz',
  'Hoffmann',
  'Schäfer',
  'Koch',
  'Bauer',
  'Richter',
  'Klein',
  'Wolf',
  'Schröder',
  'Neumann',
  'Schwarz',
  'Zimmermann',
  'Braun',
  'Krüger',
  'Hofmann',
  'Hartmann',
  'Lange',
  'Schmitt',
  'Werner',
  'Schmitz',
  'Krause',
  'Meier',
  'Lehmann',
  'Schmid',
  'Schulze',
  'Maier',
  'Köhler',
  'Herrmann',
  'König',
  'Walter',
  'Mayer',
  'Huber',
  'Kaiser',
  'Fuchs',
  'Peters',
  'Lang',
  'Scholz',
  'Möller',
  'Weiß',
  'Jung',
  'Hahn',
  'Schubert',
];
const buyerOf = (n: number) => `${firstNames[n % firstNames.length]} ${surnames[Math.floor(n / firstNames.length) % surnames.length]}`;

async function sellerWithOpenOrders(): Promise<{ id: number; token: string }> {
  const seller = await benchSeller('bench_bank_orders');
  const counted = await db()('sales_order').where({ account_id: seller.id }).count({ n: '*' }).first();
  const first = (await db()('sales_order').where({ account_id: seller.id, number: '1' }).first(db().raw("customer->'address'->>'name' AS name"))) as
    { name: string } | undefined;
  if (Number(counted?.n) !== orderCount || first?.name !== buyerOf(1)) {
    process.stdout.write(`generating ${orderCount} open orders ...\n`);
    await db()('sales_order').where({ account_id: seller.id }).delete();
    await db().raw(
      `INSERT INTO sales_order (account_id, number, id, invoice_amount, currency_id, customer_email, customer)
       SELECT :account, n, n || '_2026_11', (n % 997) + 0.99, 'EUR', 'user' || n || '@example.com',
         jsonb_build_object('address', jsonb_build_object('name',
           (:firsts::text[])[1 + n % :firstCount] || ' ' || (:surnames::text[])[1 + (n / :firstCount) % :surnameCount]))
       FROM generate_series(1, :count::bigint) AS n`,
      { account: seller.id, count: orderCount, firsts: firstNames, surnames, firstCount: firstNames.length, surnameCount: surnames.length },
    );
    await db().raw(
      `INSERT INTO order_counter (account_id, kind, last_value) VALUES (?, 'order', ?)
      ON CONFLICT (account_id, kind) DO UPDATE SET last_value = EXCLUDED.last_value`,
      [seller.id, orderCount],
    );
    await db().raw('ANALYZE sales_order');
  }
  // Every run starts from open orders and no bank records.
  // Only the orders a run paid: rewriting all 100,000 left as many dead rows behind each run.
  await db()('sales_order')
    .where({ account_id: seller.id })
    .andWhere((q) => q.where('is_paid', true).orWhereNotNull('paid_amount').orWhereNotNull('invoice_number'))
    .update({ paid_amount: null, is_paid: false, paid_date: null, invoice_number: null, bill_date: null });
  await db()('order_invoice_number').where({ account_id: seller.id }).delete();
  await db().raw('DELETE FROM sales_order_history h USING sales_order o WHERE o.internal_id = h.order_internal_id AND o.account_id = ?', [seller.id]);
  await db()('bank').where({ account_id: seller.id }).delete();
  await db()('bank_counter').where({ account_id: seller.id }).delete();
  await db()('order_counter').where({ account_id: seller.id, kind: 'invoice' }).delete();
  await db()('outbox').where({ account_id: seller.id }).delete();
  // The reset leaves 10,000 dead order rows (and the deleted bank and history rows) per run; on a
  // server without autovacuum (this machine's has it off) each run would measure a larger table
  // than the one before. Untimed.
  await db().raw('VACUUM ANALYZE sales_order, order_invoice_number, sales_order_history, bank, outbox');
  return seller;
}

/** Entry i pays order 10*i+1 in full. */
const orderOf = (i: number) => 10 * i + 1;
const amountOf = (n: number) => `${n % 997}.99`;
/** BENCH_BANK_SHAPE=order_id: issue 14's statement, every entry naming its order id (the strongest rule only). */
const orderIdsOnly = process.env.BENCH_BANK_SHAPE === 'order_id';
/** The remittance text of entry i: each of bank.match.ts's reference rules, and none (name and amount). */
function subjectOf(i: number): string {
  const n = orderOf(i);
  if (orderIdsOnly) return `Order ${n}_2026_11 thank you`;
  return [
    `Order ${n}_2026_11 thank you`,
    `${n}_2026_11`,
    `Bestellung ${n} IBAN: DE40500105174675974588 BIC: HEISDE66`,
    `Rechnung ${n}`,
    'Vielen Dank fuer die schnelle Lieferung',
  ][i % 5]!;
}

/** A statement of `count` entries; `ref` makes the bank's entry references of one statement its own. */
function statement(count = entryCount, ref = 'BENCH'): Buffer {
  const entries: string[] = [];
  for (let i = 0; i < count; i++) {
    const n = orderOf(i);
    entries.push(
      `<Ntry><Amt Ccy="EUR">${amountOf(n)}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts><BookgDt><Dt>2026-11-20</Dt></BookgDt>` +
        `<AcctSvcrRef>${ref}${i}</AcctSvcrRef><NtryDtls><TxDtls><RltdPties><Dbtr><Pty><Nm>${buyerOf(n)}</Nm></Pty></Dbtr></RltdPties>` +
        `<RmtInf><Ustrd>${subjectOf(i)}</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>`,
    );
  }
  return Buffer.from(
    `<?xml version="1.0" encoding="UTF-8"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt>` +
      `<GrpHdr><MsgId>BENCH</MsgId><CreDtTm>2026-11-21T07:00:00Z</CreDtTm></GrpHdr><Stmt><Id>BENCH</Id><Acct><Id><IBAN>DE02120300000000202051</IBAN></Id></Acct>` +
      `${entries.join('')}</Stmt></BkToCstmrStmt></Document>`,
  );
}

/** A statement's kind for the per-statement figures: its verb and first table (a leading WITH skipped). */
function statementKind(sql: string): string {
  // name_amount's candidates (lib/bank/bank.repository.ts ordersOwing): the payers' CTE before the orders'.
  if (/^\s*with "?payer"? as/i.test(sql)) return 'SELECT sales_order (name and amount)';
  const text = sql
    .replace(/\s+/g, ' ')
    .replace(/"/g, '')
    .trim()
    .replace(/^with \w+ as \( ?/i, '');
  const match = /^(update|insert into|delete from) (\w+)/i.exec(text) ?? /^(select)\b.*? from (\w+)/i.exec(text);
  if (!match) return text.slice(0, 30);
  // The matching's three reads of sales_order: the orders named, those a payer's name and amount may be, the orders locked.
  const read = / for update/i.test(text) ? ' (locked)' : / join unnest/i.test(text) ? ' (name and amount)' : ' (named)';
  return `${match[1]!.toUpperCase()} ${match[2]}${match[2] === 'sales_order' && /^select/i.test(match[1]!) ? read : ''}`;
}

/** Runs fn and sums the milliseconds of each kind of statement it sent (Knex's query events), slowest first. */
async function perStatement(fn: () => Promise<unknown>): Promise<[string, { count: number; ms: number }][]> {
  const started = new Map<string, bigint>();
  const sums = new Map<string, { count: number; ms: number }>();
  const onQuery = (q: { __knexQueryUid: string }) => started.set(q.__knexQueryUid, process.hrtime.bigint());
  const onResponse = (_: unknown, q: { __knexQueryUid: string; sql: string }) => {
    const at = started.get(q.__knexQueryUid);
    if (at === undefined) return;
    const sum = sums.get(statementKind(q.sql)) ?? { count: 0, ms: 0 };
    sum.count++;
    sum.ms += Number(process.hrtime.bigint() - at) / 1e6;
    sums.set(statementKind(q.sql), sum);
  };
  db().on('query', onQuery).on('query-response', onResponse);
  try {
    await fn();
  } finally {
    db().off('query', onQuery).off('query-response', onResponse);
  }
  return [...sums].sort((a, b) => b[1].ms - a[1].ms);
}

/** POST bank/statement/ of a statement; answers what the endpoint counted. */
async function postStatement(base: string, token: string, body: Buffer): Promise<{ statement?: { stored?: number }; job_id?: string }> {
  const res = await fetch(`${base}/bank/statement/`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/xml' },
    body,
  });
  const answer = (await res.json()) as { statement?: { stored?: number }; job_id?: string };
  if (res.status !== 202) throw new Error(`bank/statement/ answered ${res.status}: ${JSON.stringify(answer).slice(0, 300)}`);
  return answer;
}

/**
 * A running service has parsed statements before: the first large XML body after a start also
 * pays for starting the parser's worker threads and V8's warm-up of fast-xml-parser (about 150 ms
 * of 3 MB here). One untimed import of 4,000 other entries to the baseline's seller, removed
 * again, so the run measures the steady state.
 */
async function warmUp(base: string, baseline: { id: number; token: string }): Promise<void> {
  await postStatement(base, baseline.token, statement(4000, 'WARM'));
  for (const table of ['bank', 'bank_counter', 'outbox']) await db()(table).where({ account_id: baseline.id }).delete();
}

/** The baseline: the same transfer rows in one bare multi-row INSERT (chunks of 1000), for another seller. */
async function bareInsert(accountId: number): Promise<void> {
  const rows = Array.from({ length: entryCount }, (_, i) => ({
    account_id: accountId,
    number: i + 1,
    id: `${i + 1}_2026_11`,
    type: 'bank',
    transfer_date: new Date('2026-11-20T00:00:00Z'),
    sender: buyerOf(orderOf(i)),
    subject: subjectOf(i),
    amount: amountOf(orderOf(i)),
    entry_ref: `DE02120300000000202051|BENCH${i}`,
  }));
  await db().batchInsert('bank', rows, 1000);
}

export const bankBench: BenchCase = {
  name: 'bank',
  description: `POST bank/statement/ of a ${entryCount}-entry CAMT.053 and its matching against ${orderCount} open orders, vs a bare multi-row insert`,
  async run() {
    const base = await benchBase();
    const seller = await sellerWithOpenOrders();
    const baseline = await benchSeller('bench_bank_bare');
    await db()('bank').where({ account_id: baseline.id }).delete();
    if (process.env.BENCH_BANK_COLD !== '1') await warmUp(base, baseline);
    const body = statement();
    let answer: { statement?: { stored?: number }; job_id?: string } = {};
    const storeMs = await time(async () => {
      answer = await postStatement(base, seller.token, body);
    });
    let matched = 0;
    let statements: Awaited<ReturnType<typeof perStatement>> = [];
    const matchMs = await time(async () => {
      statements = await perStatement(async () => {
        matched = (await matchRange(seller.id, 1, entryCount)).assigned;
      });
    });
    const bareMs = await time(() => bareInsert(baseline.id));
    const paid = await db()('sales_order').where({ account_id: seller.id, is_paid: true }).count({ n: '*' }).first();
    const total = storeMs + matchMs;
    const line = (label: string, ms: number, extra = '') => process.stdout.write(`${label.padEnd(44)} ${ms.toFixed(0).padStart(7)} ms  ${extra}\n`);
    line(`import (parse + store ${answer.statement?.stored ?? 0} entries)`, storeMs, `${((entryCount / storeMs) * 1000).toFixed(0)} entries/s stored`);
    line(`match (${matched} assigned, ${paid?.n} orders paid)`, matchMs, `${((entryCount / matchMs) * 1000).toFixed(0)} entries/s matched`);
    line('import + match', total, `${((entryCount / total) * 1000).toFixed(0)} entries/s`);
    line(`bare multi-row insert of ${entryCount} rows`, bareMs, `ratio store ${(storeMs / bareMs).toFixed(2)}, store + match ${(total / bareMs).toFixed(2)}`);
    process.stdout.write('match, per statement (sum over the batches):\n');
    for (const [kind, { count, ms }] of statements) line(`  ${kind} (${count}x)`, ms, `${(ms / bareMs).toFixed(2)} of the bare insert`);
    const sqlMs = statements.reduce((sum, [, { ms }]) => sum + ms, 0);
    line('  the rules (match less its SQL: references, fit, decisions)', matchMs - sqlMs, `${(((matchMs - sqlMs) / matchMs) * 100).toFixed(0)} % of the match`);
    const byRule = (await db()('bank')
      .where({ account_id: seller.id })
      .groupBy('match_rule', 'unassigned_reason')
      .select('match_rule', 'unassigned_reason')
      .count('* as n')) as {
      match_rule: string | null;
      unassigned_reason: string | null;
      n: string;
    }[];
    process.stdout.write(`records by rule: ${byRule.map((r) => `${r.match_rule ?? `unassigned ${r.unassigned_reason}`} ${r.n}`).join(', ')}\n`);
    await db()('bank').where({ account_id: baseline.id }).delete();
    await benchDone();
  },
};
