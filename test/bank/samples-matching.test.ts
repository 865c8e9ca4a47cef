/**
 * Issue 29, "Real files as tests": a shop whose small order numbers collide with the digits of
 * the 25 genuine statement files of ../shared/samples/bank/ (BIC HEISDE66 and SPBIDE3B,
 * "TO13", "inklusive 1 CD"), each trap order owing exactly the amount of the transfer that
 * carries its digits. Every file is imported through POST bank/statement/ and matched by the
 * bank worker; no transfer may pay an order it does not fit (currency, amount not above what is
 * owed), no trap order is paid, and the one order a payer's name and amount truly name is.
 */
import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { db } from '../../lib/db/knex';
import { waitFor } from '../event/servers';
import { call, newSeller, query, Seller } from '../support/api';
import { startBankWorker } from './bank-worker';

const samples = path.resolve(__dirname, '../../../shared/samples/bank');
const files = ['mt940', 'camt'].flatMap((dir) =>
  readdirSync(path.join(samples, dir))
    .sort()
    .map((name) => path.join(samples, dir, name)),
);

interface OrderView {
  id: string;
  invoice_amount: string;
  paid_amount: string | null;
  currency_id: string;
}

/** Order number -> invoice amount, currency and billing name. Traps first, then filler. */
const traps: Record<number, [string, string]> = {
  1: ['80.00', 'EUR'], // Volksbank: "Musical fuer FRIDA inklusive 1 CD", 80.00
  3: ['55.00', 'EUR'], // Volksbank: BIC SPBIDE3B, Werner Furter, 55.00
  13: ['125.88', 'EUR'], // betterplace: "SVWZ+TO13 TF20018 MINT", 125.88
  66: ['65.00', 'EUR'], // Volksbank: BIC HEISDE66, Olivia Dorn, 65.00
};
const filler = ['40.00', '104.50', '3000.00', '500.00', '169.90', '150.00', '4.50', '1500.00', '8.85', '1405.31', '2187.00', '79.70', '250.00', '100.00'];
const currencies = ['EUR', 'EUR', 'EUR', 'CHF', 'EUR', 'DKK', 'EUR'];

function orderOf(n: number): Record<string, unknown> {
  const [price, currency] = traps[n] ?? [filler[n % filler.length]!, currencies[n % currencies.length]!];
  return {
    currency_id: currency,
    customer: { email: `kunde${n}@example.com`, address: { name: `Kunde ${n}` } },
    line: [{ id: 1, name: 'Artikel', price, quantity: 1 }],
  };
}

/**
 * SOURCES.md's booked credits less the returns among them (betterplace's 17 GV 159 "RETOURE",
 * GLS's ICDT/RRTN), per file: what each import must read as payments.
 */
const credits: Record<string, number> = {
  'betterplace__sepa_mt9401.txt': 24,
  'cmxl__mt940-deutsche_bank.txt': 7,
  'cmxl__mt940-iso8859-1.txt': 1,
  'jejik__abnamro.txt': 0,
  'jejik__ing-dos.txt': 2,
  'jejik__knab.txt': 2,
  'jejik__oldenburgischelandesbank.txt': 1,
  'jejik__postfinance.txt': 3,
  'jejik__volksbankenraiffeisenbanken.txt': 12,
  'mt940rs__danskebank_MT940_DK_Example.sta': 8,
  'phpmt940__Bunq_sample.sta': 26,
  'phpmt940__Kontist_sample.sta': 4,
  'phpmt940__Rabo_sample.sta': 26,
  'phpmt940__Rabo_sample3.sta': 8,
  'phpmt940__Spk_sample.sta': 9,
  'phpmt940__Triodos_sample.sta': 2,
  'wolph__raiffeisen-cmi.sta': 1,
  'genkgo__camt053.v2.multi.statement.xml': 1,
  'genkgo__camt053.v8.xml': 1,
  'libeufin__gls_camt053.xml': 1,
  'libeufin__postfinance_camt053_v2009.xml': 4,
  'libeufin__postfinance_camt053_v2019.xml': 4,
  'libeufin__postfinance_platform_camt053.xml': 0,
  'oca__test-camt053-txdtls.xml': 2,
  'oca__test-camt053.xml': 1,
};

describe('bank: the genuine statement files against a shop of 84 open orders', () => {
  let seller: Seller;
  const answers = new Map<string, { entries: number; stored: number; duplicates: number }>();
  let bankWorker: { stop(): Promise<void> } | undefined;
  const ids = new Map<number, string>();
  let rightOrder: string;

  before(async function () {
    this.timeout(120_000);
    bankWorker = await startBankWorker('bank-samples');
    seller = await newSeller();
    const res = await call('order/list/', { token: seller.token, body: { order: Array.from({ length: 84 }, (_, i) => orderOf(i + 1)) } });
    expect(res.status, res.text).to.equal(207);
    for (const item of res.body.response as { order_id?: string }[]) ids.set(Number(item.order_id!.split('_')[0]), item.order_id!);
    expect(ids.size).to.equal(84);
    // The one order the files truly pay: Olivia Dorn's 65.00 of the Volksbank file, by name and amount.
    const right = await call('order/', {
      token: seller.token,
      body: { order: { customer: { email: 'olivia@example.com', address: { name: 'Olivia Dorn' } }, line: [{ id: 1, price: '65.00', quantity: 1 }] } },
    });
    expect(right.status, right.text).to.equal(201);
    rightOrder = right.body.order_id as string;
    for (const file of files) {
      const imported = await call('bank/statement/', {
        token: seller.token,
        body: readFileSync(file),
        headers: { 'Content-Type': 'application/octet-stream' },
      });
      expect([200, 202], `${path.basename(file)}: ${imported.text}`).to.include(imported.status);
      answers.set(path.basename(file), imported.body.statement as { entries: number; stored: number; duplicates: number });
      const jobId = imported.body.job_id as string | undefined;
      if (jobId)
        await waitFor(
          async () => ((await call(`job/${jobId}/`, { token: seller.token })).body.job as { state?: string } | undefined)?.state === 'completed' || undefined,
          jobId,
        );
    }
  });
  after(async () => {
    await bankWorker?.stop();
  });

  it("when every file is imported into one account, then each reads the credits SOURCES.md counts, and the statements SOURCES.md names twice (PostFinance's as camt.053.001.04 and .001.08, cmxl's EUR statement in two files) are stored once", async () => {
    expect([...answers.keys()].sort()).to.deep.equal(Object.keys(credits).sort());
    for (const [name, count] of Object.entries(credits)) expect(answers.get(name)!.entries, name).to.equal(count);
    // v2009 is imported first (file order): the .001.08 copy of the same bookings (same AcctSvcrRef, amount and day) stores nothing.
    expect(answers.get('libeufin__postfinance_camt053_v2009.xml')).to.include({ stored: 4, duplicates: 0 });
    expect(answers.get('libeufin__postfinance_camt053_v2019.xml')).to.include({ stored: 0, duplicates: 4 });
    // The Deutsche Bank file holds "the same EUR statement as the ISO file in ASCII" (SOURCES.md): its 3000.00 is stored once.
    expect(answers.get('cmxl__mt940-deutsche_bank.txt')).to.include({ stored: 7, duplicates: 0 });
    expect(answers.get('cmxl__mt940-iso8859-1.txt')).to.include({ stored: 0, duplicates: 1 });
    const total = Object.values(credits).reduce((a, b) => a + b, 0);
    const [stored] = await db()('bank').where({ account_id: seller.id }).count<{ count: string }[]>('* as count');
    expect(Number(stored!.count)).to.equal(total - 4 - 1);
  });

  it('when every file is imported and matched, then no transfer pays an order it does not fit', async () => {
    const assigned = (await db()('bank as b')
      .join('sales_order as o', (j) => j.on('o.account_id', 'b.account_id').andOn('o.id', 'b.order_id'))
      .where('b.account_id', seller.id)
      .select('b.id', 'b.amount', 'b.currency_id', 'b.match_rule', 'o.id as order_id', 'o.currency_id as order_currency', 'o.invoice_amount')) as {
      amount: string;
      currency_id: string;
      order_currency: string;
      invoice_amount: string;
      order_id: string;
    }[];
    for (const a of assigned) {
      expect(a.currency_id, `${JSON.stringify(a)}`).to.equal(a.order_currency);
      expect(Number(a.amount)).to.be.at.most(Number(a.invoice_amount));
    }
    const orders = (await call(`order/?${query({ pagination: { limit: 200 } })}`, { token: seller.token })).body.order as OrderView[];
    for (const o of orders) {
      const paid = assigned.filter((a) => a.order_id === o.id).reduce((sum, a) => sum + Math.round(Number(a.amount) * 100), 0);
      expect(Math.round(Number(o.paid_amount ?? 0) * 100), o.id).to.equal(paid);
      expect(Number(o.paid_amount ?? 0)).to.be.at.most(Number(o.invoice_amount));
    }
  });

  it('when digits of a BIC, a booking text or a quantity equal a trap order number and amount, then that order stays unpaid', async () => {
    for (const n of Object.keys(traps)) {
      const res = await call(`order/${ids.get(Number(n))}/`, { token: seller.token });
      expect(res.status, res.text).to.equal(200);
      expect((res.body.order as OrderView).paid_amount, `order ${n}`).to.equal(null);
    }
  });

  it("when a payer's name and amount name one open order, then that order is paid by name_amount", async () => {
    const res = await call(`order/${rightOrder}/`, { token: seller.token });
    expect((res.body.order as OrderView).paid_amount).to.equal('65.00');
    const [record] = await db()('bank').where({ account_id: seller.id, order_id: rightOrder }).select('match_rule');
    expect(record).to.deep.equal({ match_rule: 'name_amount' });
  });

  it('when the same files come again, then nothing new is stored', async () => {
    const before = await db()('bank').where({ account_id: seller.id }).count<{ count: string }[]>('* as count');
    for (const file of files) {
      const again = await call('bank/statement/', { token: seller.token, body: readFileSync(file), headers: { 'Content-Type': 'application/octet-stream' } });
      expect(again.status, `${path.basename(file)}: ${again.text}`).to.equal(200);
      expect((again.body.statement as { stored: number }).stored).to.equal(0);
    }
    const after = await db()('bank').where({ account_id: seller.id }).count<{ count: string }[]>('* as count');
    expect(after[0]!.count).to.equal(before[0]!.count);
  });
});
