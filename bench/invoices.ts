/**
 * Invoices (issue 35, Speed): 1,000 orders created paid through POST order/list/ (5 calls of 200,
 * three lines at 19 % and 7 % and shipping each), then issued by the invoice job as the worker runs
 * it (relay and worker in this process, one Node thread, archive in a temporary folder): invoices
 * per second, CPU of this process per invoice, and the share of planning, XML, PDF and storing.
 * Baseline in the same run: the same 1,000 orders' creation, which carries only one outbox row per
 * call for their invoices (the payment is not slowed by rendering). Aim: 1,000 in under 60 s.
 * With EN16931_CII_XSLT naming the CEN validation XSLT (ConnectingEurope/eInvoicing-EN16931,
 * cii/xslt/EN16931-CII-validation.xslt) and Debian's Saxon-HE installed, the first invoices are
 * also checked by it, and by xmllint against ../shared/contracts/cii-d16b/; with XRECHNUNG_CII_XSLT
 * naming KoSIT's XRechnung schematron compiled to XSLT (itplr-kosit/xrechnung-schematron, compiled
 * e.g. with SchXslt), their XRechnung XMLs by that too.
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
    const row = await db()('sales_order').where({ account_id: accountId }).whereIn('id', ids).whereNull('bill_url').count({ n: '*' }).first();
    if (Number(row?.n) === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The failed asserts of Saxon's SVRL reports on the XMLs of a folder: errors and the rest. */
function schematron(xslt: string, xmlDir: string): { reports: number; errors: string[]; other: string[] } | string {
  const svrl = fs.mkdtempSync(path.join(os.tmpdir(), 'kontor-invoice-svrl-'));
  const run = spawnSync('java', ['-cp', '/usr/share/java/Saxon-HE.jar', 'net.sf.saxon.Transform', `-s:${xmlDir}`, `-xsl:${xslt}`, `-o:${svrl}`], {
    encoding: 'utf8',
  });
  if (run.status !== 0) return `Saxon failed: ${(run.stderr || String(run.error)).slice(0, 300)}`;
  const reports = fs.readdirSync(svrl).map((f) => fs.readFileSync(path.join(svrl, f), 'utf8'));
  const asserts = reports.flatMap((r) => [...r.matchAll(/<svrl:failed-assert([^>]*)>/g)].map((m) => m[1]!));
  const attr = (a: string, name: string) => new RegExp(`${name}="([^"]*)"`).exec(a)?.[1] ?? '';
  const isError = (a: string) => ['fatal', 'error'].includes(attr(a, 'flag'));
  return {
    reports: reports.length,
    errors: asserts.filter(isError).map((a) => attr(a, 'id')),
    other: asserts.filter((a) => !isError(a)).map((a) => `${attr(a, 'id')} ${attr(a, 'flag')}`),
  };
}

function verdict(name: string, result: ReturnType<typeof schematron>): void {
  if (typeof result === 'string') {
    process.stdout.write(`${name}: ${result}\n`);
    return;
  }
  const list = (items: string[]) => (items.length ? ` (${[...new Set(items)].join(', ')})` : '');
  process.stdout.write(
    `${name} on ${result.reports} XMLs: ${result.errors.length} errors${list(result.errors)}, ${result.other.length} warnings/information${list(result.other)}\n`,
  );
}

/** xmllint's and (where EN16931_CII_XSLT, XRECHNUNG_CII_XSLT name them) the schematrons' verdicts on a few issued invoices. */
async function validatorVerdicts(dir: string, accountId: number, ids: string[]): Promise<void> {
  const xsd = path.resolve(__dirname, '../../shared/contracts/cii-d16b/CrossIndustryInvoice_100pD16B.xsd');
  const facturx = fs.mkdtempSync(path.join(os.tmpdir(), 'kontor-invoice-xml-'));
  const xrechnung = fs.mkdtempSync(path.join(os.tmpdir(), 'kontor-invoice-xrechnung-'));
  const rows = (await db()('invoice').where({ account_id: accountId }).whereIn('order_id', ids.slice(0, checked)).select('pdf_key', 'xrechnung_key')) as {
    pdf_key: string;
    xrechnung_key: string;
  }[];
  for (const [i, row] of rows.entries()) {
    const read = await readFacturx(fs.readFileSync(path.join(dir, row.pdf_key)));
    fs.writeFileSync(path.join(facturx, `invoice-${i}.xml`), read.invoiceFile!.bytes);
    fs.copyFileSync(path.join(dir, row.xrechnung_key), path.join(xrechnung, `xrechnung-${i}.xml`));
  }
  const files = [facturx, xrechnung].flatMap((d) => fs.readdirSync(d).map((f) => path.join(d, f)));
  const lint = spawnSync('xmllint', ['--noout', '--nonet', '--schema', xsd, ...files], { encoding: 'utf8' });
  process.stdout.write(
    `xmllint (CII D16B XSD) on ${files.length} XMLs (Factur-X, XRechnung): ${lint.error ? 'not installed' : lint.status === 0 ? 'all validate' : lint.stderr.trim()}\n`,
  );
  const cen = process.env.EN16931_CII_XSLT;
  if (cen) {
    verdict('CEN EN 16931 schematron (Saxon-HE), Factur-X', schematron(cen, facturx));
    verdict('CEN EN 16931 schematron (Saxon-HE), XRechnung', schematron(cen, xrechnung));
  } else process.stdout.write('CEN EN 16931 schematron: not run (set EN16931_CII_XSLT and install libsaxonhe-java)\n');
  const kosit = process.env.XRECHNUNG_CII_XSLT;
  if (kosit) verdict('KoSIT XRechnung 3.0 schematron (Saxon-HE), XRechnung', schematron(kosit, xrechnung));
  else process.stdout.write('KoSIT XRechnung schematron: not run (set XRECHNUNG_CII_XSLT)\n');
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
    await benchCall('admin/user/', seller.token, {
      user: {
        settings: {
          invoice: {
            vat_id: 'DE123456789',
            iban: 'DE02120300000000202051',
            contact_name: 'Buchhaltung',
            phone: '+49 30 1234567',
            email: 'rechnung@example.com',
          },
        },
      },
    });
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
    const jobs = (await db()('outbox').where({ account_id: seller.id, job_name: 'invoice.issue' }).count({ n: '*' }).first())!;
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
        `numbers ${(timings.planMs / orderCount).toFixed(2)} ms (${share(timings.planMs)}), storing the three files (PDF, Factur-X and XRechnung XML) ${(timings.storeMs / orderCount).toFixed(2)} ms (${share(timings.storeMs)}); ` +
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
