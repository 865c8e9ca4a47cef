/**
 * Statements in a ZIP archive, as German banks hand out camt.053 downloads (lib/bank README,
 * statement-archive.ts). The archives are built here from the genuine samples of
 * shared/samples/bank/camt/ (SOURCES.md), read from there: GLS Bank's statement and PostFinance's.
 */
import { expect } from 'chai';
import { zipSync } from 'fflate';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { config } from '../../config';
import { call, newSeller, query, Seller } from '../support/api';

const sample = (name: string) => new Uint8Array(readFileSync(path.resolve(__dirname, '../../../shared/samples/bank/camt', name)));
const gls = 'libeufin__gls_camt053.xml';
const postFinance = 'libeufin__postfinance_camt053_v2019.xml';

const post = (who: Seller, body: Buffer, type = 'application/zip') => call('bank/statement/', { token: who.token, body, headers: { 'Content-Type': type } });

async function transfers(who: Seller): Promise<string[][]> {
  const res = await call(`bank/transfer/?${query({ pagination: { limit: 100 } })}`, { token: who.token });
  expect(res.status, res.text).to.equal(200);
  return (res.body.bank as Record<string, string>[]).map((r) => [r.sender!, r.amount!, r.currency_id!, r.transfer_date!.slice(0, 10)]);
}

describe('bank statements in a ZIP archive (POST bank/statement/)', () => {
  it("when a bank's archive of two camt.053 files is posted, then every file's credits are stored as posting each would, once", async () => {
    const seller = await newSeller();
    const archive = Buffer.from(
      zipSync({ [`2024-04-12_${gls}`]: sample(gls), 'CH/': {}, [`CH/${postFinance}`]: sample(postFinance), '__MACOSX/._x.xml': new Uint8Array([0, 5, 22, 7]) }),
    );
    const res = await post(seller, archive);
    expect(res.status, res.text).to.equal(202);
    // GLS: 1 credit (John Smith 3.00), 2 debits, 1 a return; PostFinance: 4 credits, 1 debit (samples-camt-import's counts).
    expect(res.body.statement).to.deep.include({ format: 'camt.053', statements: 2, entries: 5, stored: 5, duplicates: 0, debits: 3, returns: 1, unbooked: 0 });
    expect(res.body.job_id).to.be.a('string');
    const rows = await transfers(seller);
    expect(rows).to.have.length(5);
    expect(rows).to.deep.include(['John Smith', '3.00', 'EUR', '2024-04-12']);
    expect(rows.filter((r) => r[2] === 'CHF').map((r) => r[1])).to.have.members(['4.50', '1500.00', '1537.00', '1692.22']);

    // The same archive again, and one of its files alone: nothing stored twice.
    const again = await post(seller, archive);
    expect(again.status, again.text).to.equal(200);
    expect(again.body.statement).to.deep.include({ stored: 0, duplicates: 5 });
    const alone = await post(seller, Buffer.from(sample(gls)), 'application/xml');
    expect(alone.body.statement).to.deep.include({ stored: 0, duplicates: 1 });
    expect(await transfers(seller)).to.have.length(5);
  });

  it('when a file of the archive is no statement, or the archive is broken, nested or too large, then 400 naming it and nothing is stored', async () => {
    const seller = await newSeller();
    const cases: [Buffer, RegExp, string?][] = [
      [
        Buffer.from(zipSync({ [gls]: sample(gls), 'readme.txt': new TextEncoder().encode('Kontoauszug') })),
        /^readme\.txt: the file is neither/,
        'unsupported_statement',
      ],
      [Buffer.from(zipSync({ 'inner.zip': zipSync({ [gls]: sample(gls) }) })), /^inner\.zip: an archive inside the archive/],
      [Buffer.from(zipSync({})), /holds no statement file/],
      [Buffer.from(zipSync({ [gls]: sample(gls) })).subarray(0, 300), /^the ZIP archive cannot be read/],
      // More than a file posted alone may be (BODY_LIMIT_BYTES), from a few kilobytes: refused by what the archive declares, before inflating.
      [Buffer.from(zipSync({ 'big.xml': new Uint8Array(config().bodyLimitBytes + 1) })), /more than 500 files or \d+ bytes \(BODY_LIMIT_BYTES\)/],
    ];
    for (const [archive, description, id = 'malformed_statement'] of cases) {
      const res = await post(seller, archive);
      expect(res.status, res.text).to.equal(400);
      expect(res.body.error![0]).to.deep.include({ error: id, field: 'body' });
      expect(res.body.error![0]!.description).to.match(description);
    }
    expect(await transfers(seller)).to.deep.equal([]);
  });
});
