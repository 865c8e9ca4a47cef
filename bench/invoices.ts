/**
 * Invoices (issue 35, Speed): 1,000 orders created paid through POST order/list/ (5 calls of 200,
 * three lines at 19 % and 7 % and shipping each), then issued by the invoice job as the worker runs
 * it (relay and worker in this process, one Node thread, archive in a temporary folder): invoices
 * per second, CPU of this process per invoice, and the share of planning, XML, PDF and storing.
 * Baseline in the same run: the same 1,000 orders' creation, which carries only one outbox row per
 * call for their invoices (the payment is not slowed by rendering). Aim: 1,000 in under 60 s.
 * With EN16931_CII_XSLT naming the CEN validation XSLT (ConnectingEurope/eInvoicing-EN16931,
 * cii/xslt/EN16931-CII-validation.xslt) and Debian's Saxon-HE installed, the first invoices are
 * also checked by it, and by xmllint against ../shared/contracts/cii-d16b/.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BenchCase } from './cases';
import { db } from '../lib/db/knex';
import { issueInvoices, IssueTimings, LocalFolderStorage, readFacturx, setInvoiceStorage } from '../lib/invoice';
import { defineProcessors } from '../lib/queue/processors';
import { OutboxRelay } from '../lib/queue/relay';
import { startWorker } from '../lib/queue/worker';
import { benchBase, benchCall, benchDone, benchSeller, time } from './order-support';

const orderCount = 1000;
const perCall = 200;
const checked = 5;

function order(i: number): Record<string, unknown> {
  return {
    customer: { email: `buyer${i}@example.com`, address: { name: `Käufer ${i}`, street: 'Weg 1', zip: '20095', city: 'Hamburg', country_iso2: 'DE' } },
    status: { is_paid: true },
    payment_method_id: 'Prepayment',
    shipping: { fee: '4.90' },
    line: [
      { id: 1, name: 'Kaffeebecher „Kontor“', sku: `CUP-${i % 50}`, quantity: 1 + (i % 3), price: `${9 + (i % 7)}.99`, tax: '19' },
      { id: 2, name: 'Kochbuch für Einsteiger', sku: 'BOOK-7', quantity: 1, price: '23.50', tax: '7' },
      { id: 3, name: 'Geschenkpapier', sku: 'WRAP', quantity: 2, price: '1.95', tax: '19' },
    ],
  };
}

async function waitForBills(accountId: number, ids: string[]): Promise<void> {
  for (;;) {
    const row = (await db()('sales_order').where({ account_id: accountId }).whereIn('id', ids).whereNull('bill_url').count('* as n').first()) as { n: string };
    if (Number(row.n) === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** xmllint's and (where EN16931_CII_XSLT is set) the CEN schematron's verdict on a few issued invoices. */
async function validatorVerdicts(dir: string, accountId: number, ids: string[]): Promise<void> {
  const xsd = path.resolve(__dirname, '../../shared/contracts/cii-d16b/CrossIndustryInvoice_100pD16B.xsd');
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'kontor-invoice-xml-'));
  const rows = (await db()('invoice').where({ account_id: accountId }).whereIn('order_id', ids.slice(0, checked)).select('pdf_key')) as { pdf_key: string }[];
  for (const [i, row] of rows.entries()) {
    const read = await readFacturx(fs.readFileSync(path.join(dir, row.pdf_key)));
    fs.writeFileSync(path.join(out, `invoice-${i}.xml`), read.invoiceFile!.bytes);
  }
  const files = fs.readdirSync(out).map((f) => path.join(out, f));
  const lint = spawnSync('xmllint', ['--noout', '--nonet', '--schema', xsd, ...files], { encoding: 'utf8' });
  process.stdout.write(
    `xmllint (CII D16B XSD) on ${files.length} invoices: ${lint.error ? 'not installed' : lint.status === 0 ? 'all validate' : lint.stderr.trim()}\n`,
  );
  const xslt = process.env.EN16931_CII_XSLT;
  if (!xslt) {
    process.stdout.write('CEN EN 16931 schematron: not run (set EN16931_CII_XSLT and install libsaxonhe-java)\n');
    return;
  }
  const svrl = path.join(os.tmpdir(), `kontor-invoice-svrl-${process.pid}`);
  fs.mkdirSync(svrl, { recursive: true });
  const run = spawnSync('java', ['-cp', '/usr/share/java/Saxon-HE.jar', 'net.sf.saxon.Transform', `-s:${out}`, `-xsl:${xslt}`, `-o:${svrl}`], {
    encoding: 'utf8',
  });
  if (run.status !== 0) {
    process.stdout.write(`CEN EN 16931 schematron: Saxon failed: ${(run.stderr || String(run.error)).slice(0, 300)}\n`);
    return;
  }
  const reports = fs.readdirSync(svrl).map((f) => fs.readFileSync(path.join(svrl, f), 'utf8'));
  const failed = reports.flatMap((r) => [...r.matchAll(/<svrl:failed-assert[^>]*id="([^"]+)"[^>]*flag="fatal"/g)].map((m) => m[1]));
  const warnings = reports.flatMap((r) => [...r.matchAll(/<svrl:failed-assert[^>]*id="([^"]+)"[^>]*flag="warning"/g)].map((m) => m[1]));
  process.stdout.write(
    `CEN EN 16931 schematron (Saxon-HE) on ${reports.length} invoices: ${failed.length} fatal${failed.length ? ` (${failed.join(', ')})` : ''}, ${warnings.length} warnings${warnings.length ? ` (${[...new Set(warnings)].join(', ')})` : ''}\n`,
  );
}

export const invoicesBench: BenchCase = {
  name: 'invoices',
  description: `${orderCount} paid orders invoiced by the invoice job (PDF/A-3 + Factur-X), archive in a folder`,
  async run() {
    await benchBase();
    const seller = await benchSeller();
    await db()('account')
      .where({ id: seller.id })
      .update({ address: JSON.stringify({ name: 'Kontor Benchhandel GmbH', street: 'Hauptstraße 1', zip: '10115', city: 'Berlin', country_iso2: 'DE' }) });
    await benchCall('admin/user/', seller.token, { user: { settings: { invoice: { vat_id: 'DE123456789', iban: 'DE02120300000000202051' } } } });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kontor-bench-invoices-'));
    setInvoiceStorage(new LocalFolderStorage(dir, 'http://127.0.0.1', Buffer.alloc(32, 1)));
    const timings: IssueTimings = { planMs: 0, xmlMs: 0, pdfMs: 0, storeMs: 0 };
    const ids: string[] = [];
    // The orders, paid at creation: their invoice jobs wait in the outbox until the relay starts.
    const createMs = await time(async () => {
      for (let start = 0; start < orderCount; start += perCall) {
        const body = { order: Array.from({ length: perCall }, (_, i) => order(start + i)) };
        const answer = await benchCall('order/list/', seller.token, body, 207);
        ids.push(...(answer.response as { order_id: string }[]).map((r) => r.order_id));
      }
    });
    const jobs = (await db()('outbox').where({ account_id: seller.id, job_name: 'invoice.issue' }).count('* as n').first()) as { n: string };
    process.stdout.write(`created ${ids.length} paid orders in ${(createMs / 1000).toFixed(1)} s (${jobs.n} invoice.issue outbox rows)\n`);

    const relay = new OutboxRelay({ pollMs: 100, repairEveryMs: 0 });
    const processors = defineProcessors('invoice', { 'invoice.issue': (data) => issueInvoices(data.accountId, data.orderIds, timings) });
    const cpu = process.cpuUsage();
    let worker: Awaited<ReturnType<typeof startWorker>> | undefined;
    const issueMs = await time(async () => {
      // One job at a time: rendering is CPU in this one thread, so more at once only interleaves
      // them (and would blur the shares below); the 5 jobs of 200 orders keep it busy.
      worker = await startWorker('invoice', processors, { skipEvictionCheck: true, registerShutdown: false, concurrency: 1 });
      await relay.start();
      await waitForBills(seller.id, ids);
    });
    const used = process.cpuUsage(cpu);
    await worker?.close();
    await relay.stop();
    const cpuMs = (used.user + used.system) / 1000;
    const share = (ms: number) => `${((ms / issueMs) * 100).toFixed(0)} %`;
    process.stdout.write(
      `issued ${orderCount} invoices in ${(issueMs / 1000).toFixed(1)} s: ${(orderCount / (issueMs / 1000)).toFixed(1)} invoices/s, ` +
        `CPU ${(cpuMs / orderCount).toFixed(1)} ms per invoice (this process; Postgres and Redis apart)\n` +
        `  per invoice and share of the issuing time: PDF ${(timings.pdfMs / orderCount).toFixed(1)} ms (${share(timings.pdfMs)}), XML ${(timings.xmlMs / orderCount).toFixed(2)} ms (${share(timings.xmlMs)}), ` +
        `numbers ${(timings.planMs / orderCount).toFixed(2)} ms (${share(timings.planMs)}), storing both files ${(timings.storeMs / orderCount).toFixed(2)} ms (${share(timings.storeMs)}); ` +
        `the rest is reading the order and writing the row and bill_url\n` +
        `  baseline: creating the same orders paid took ${(createMs / orderCount).toFixed(2)} ms per order; issuing adds ${(issueMs / orderCount).toFixed(1)} ms per order in the worker, none in the request\n`,
    );
    const bytes = fs
      .readdirSync(path.join(dir, String(seller.id)))
      .filter((f) => f.endsWith('.pdf'))
      .map((f) => fs.statSync(path.join(dir, String(seller.id), f)).size);
    process.stdout.write(`PDF size: ${(bytes.reduce((a, b) => a + b, 0) / bytes.length / 1024).toFixed(1)} KiB on average\n`);
    await validatorVerdicts(dir, seller.id, ids);
    setInvoiceStorage(undefined);
    fs.rmSync(dir, { recursive: true, force: true });
    await benchDone();
  },
};
