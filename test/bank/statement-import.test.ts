import { expect } from 'chai';
import { db } from '../../lib/db/knex';
import { call, newSeller, query, Seller } from '../support/api';
import { kontor } from '../support/cli';
import path from 'node:path';
import { fixture } from './fixtures';

interface BankView {
  id: string;
  sender: string;
  subject: string;
  amount: string;
  transfer_date: string;
  order_no?: string | null;
  order_id?: string;
}

const postFile = (who: Seller, body: Buffer, contentType = 'application/octet-stream') =>
  call('bank/statement/', { token: who.token, body, headers: { 'Content-Type': contentType } });

async function transfers(who: Seller): Promise<BankView[]> {
  const res = await call(`bank/transfer/?${query({ pagination: { limit: 100 } })}`, { token: who.token });
  expect(res.status, res.text).to.equal(200);
  return res.body.bank as BankView[];
}

describe('bank: statement import (POST bank/statement/)', () => {
  it('when a CAMT.053 file is posted, then 202 counts what was stored and skipped, with the job_id of the matching', async () => {
    const s = await newSeller();
    const res = await postFile(s, fixture('camt053.001.08.xml', { ORDER_1: 'none', ORDER_2: 'none' }), 'application/xml');
    expect(res.status, res.text).to.equal(202);
    expect(res.body.ack).to.equal('success');
    expect(res.body.statement).to.deep.equal({ format: 'camt.053', statements: 2, entries: 3, stored: 3, duplicates: 0, debits: 1, returns: 0, unbooked: 1 });
    expect(res.body.job_id).to.match(/^[0-9a-f-]{36}$/);
    const rows = await transfers(s);
    expect(rows.map((r) => [r.sender, r.subject, r.amount, r.transfer_date])).to.deep.equal([
      ['Jürgen Müller', 'Bestellung none vielen Dank für die schnelle Lieferung', '49.90', '2026-11-20T00:00:00.000Z'],
      ['Zoë Brandstätter', '', '24.50', '2026-11-21T00:00:00.000Z'],
      ['Anna Ødegård', 'Spende & Trinkgeld', '5.00', '2026-11-21T00:00:00.000Z'],
    ]);
    expect(rows.map((r) => r.id)).to.deep.equal(rows.map((_, i) => `${i + 1}${rows[0]!.id.slice(1)}`));
  });

  it('when the same statement comes again, or an MT940 overlapping it, then every entry is stored once (200, duplicates counted)', async () => {
    const s = await newSeller();
    expect((await postFile(s, fixture('mt940-latin1.sta'))).status).to.equal(202);
    const again = await postFile(s, fixture('mt940-latin1.sta'), 'text/plain; charset=iso-8859-1');
    expect(again.status, again.text).to.equal(200);
    expect(again.body.statement).to.include({ entries: 3, stored: 0, duplicates: 3 });
    expect(again.body).to.not.have.key('job_id');
    // The second statement of the file alone, as the next day's file repeating yesterday's entries.
    const second = fixture('mt940-latin1.sta').toString('latin1').split('-\r\n')[1]!;
    const overlap = await postFile(s, Buffer.from(`${second}-\r\n`, 'latin1'));
    expect(overlap.status, overlap.text).to.equal(200);
    expect(overlap.body.statement).to.include({ stored: 0, duplicates: 2 });
    const rows = await transfers(s);
    expect(rows.map((r) => r.sender)).to.deep.equal(['Jürgen Müller', 'Zoë Brandstätter', '']);
    expect(rows[2]!.subject).to.equal('Trinkgeld von Björn Ängström');
  });

  // Issue 29: an entry is keyed by what identifies it in its statement (its position among them),
  // never by document 1's duplicate rule, which merged distinct payments of equal text and amount.
  it('when a transfer posted through bank/transfer/ is an entry of a statement imported later (the same day, amount, payer and text), then it is stored once: the statement takes it for that entry, and a re-import stores nothing', async () => {
    const s = await newSeller();
    const posted = await call('bank/transfer/', {
      token: s.token,
      body: { bank: { transfer_date: '2026-11-21T00:00:00Z', sender: '', subject: 'Trinkgeld von Björn Ängström', amount: '5.00' } },
    });
    expect(posted.status, posted.text).to.equal(201);
    const res = await postFile(s, fixture('mt940-latin1.sta'));
    expect(res.body.statement).to.include({ stored: 2, duplicates: 1 });
    expect(await transfers(s)).to.have.length(3);
    const again = await postFile(s, fixture('mt940-latin1.sta'));
    expect(again.body.statement).to.include({ stored: 0, duplicates: 3 });
  });

  it('when the file is malformed, then 400 names the line or element and nothing is stored', async () => {
    const s = await newSeller();
    const broken = fixture('mt940-latin1.sta').toString('latin1').replace(':61:2611211121CR24,50', ':61:2611211121XR24,50');
    const res = await postFile(s, Buffer.from(broken, 'latin1'));
    expect(res.status, res.text).to.equal(400);
    expect(res.body.error![0]).to.include({ error: 'malformed_statement', field: 'line 16' });
    const camt = await postFile(s, fixture('camt053.001.02.xml', { AMOUNT_1: '-' }), 'application/xml');
    expect(camt.status).to.equal(400);
    expect(camt.body.error![0]!.field).to.equal('Document/BkToCstmrStmt/Stmt[1]/Ntry[1]/Amt');
    const empty = await call('bank/statement/', { token: s.token, method: 'POST' });
    expect(empty.status).to.equal(400);
    expect(empty.body.error![0]!.field).to.equal('body');
    expect(await db()('bank').where({ account_id: s.id })).to.have.length(0);
    expect(await db()('outbox').where({ account_id: s.id, job_name: 'bank.match' })).to.have.length(0);
  });

  it('when OPTIONS is asked for bank/statement/, then it describes the file body; the token needs bank_w', async () => {
    const s = await newSeller();
    const res = await call('bank/statement/', { method: 'OPTIONS', token: s.token });
    expect(res.status).to.equal(200);
    const method = (res.body.options as { methods: { method: string; request: { file: string }; async: boolean }[] }).methods[0]!;
    expect(method).to.include({ method: 'POST', async: true });
    expect(method.request.file).to.match(/CAMT\.053.*MT940/);
    const reader = await newSeller('bank_r');
    expect((await postFile(reader, fixture('mt940-tags.sta'))).status).to.equal(403);
  });

  it('when support runs kontor bank import with a statement file, then the entries are stored as through the route; a bad file is one line and exit 1', async () => {
    const s = await newSeller();
    const file = path.join(__dirname, 'fixtures', 'mt940-tags.sta');
    const res = await kontor('bank', 'import', '--login', s.login, file);
    expect(res.code, res.err).to.equal(0);
    const printed = JSON.parse(res.out) as { statement: Record<string, unknown>; job_id: string };
    expect(printed.statement).to.include({ format: 'mt940', stored: 1, duplicates: 0 });
    expect(printed.job_id, 'named as the API names it').to.be.a('string');
    expect(Object.keys(printed).sort()).to.deep.equal(['job_id', 'statement']);
    expect((await transfers(s)).map((r) => r.sender)).to.deep.equal(['Sjoerd de Vries']);
    const bad = await kontor('bank', 'import', '--login', s.login, path.join(__dirname, 'fixtures.ts'));
    expect(bad.code).to.equal(1);
    expect(bad.err.split('\n').filter(Boolean)).to.have.length(1);
    const missing = await kontor('bank', 'import', '--login', s.login);
    expect(missing.err).to.contain('FILE is required');
  });
});
