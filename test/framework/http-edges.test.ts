/**
 * Edges a reviewer found probing the service as an outside client (2026-11-30): settings keys
 * that are no XML element name (the XML answer of admin/user/ was malformed and lost keys),
 * portal_account_id texts the validator took against what openapi.json states, the message of a
 * page number past its 9 digits, and a DOCTYPE inside CDATA refused as if it were one.
 */
import { spawnSync } from 'node:child_process';
import { expect } from 'chai';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { accountRepository } from '../../lib/account/account.repository';
import { db } from '../../lib/db';
import { DomainError } from '../../lib/errors';
import { Joi, list, ownPortalAccountId, portalAccountRef, validate } from '../../lib/http';
import type { PortalAccountMention } from '../../lib/http';
import { ApiResponse, call, newSeller, Seller } from '../support/api';

function expectRefused(res: ApiResponse, status: number, code: string, field: string): void {
  expect(res.status, res.text).to.equal(status);
  expect(res.body.ack).to.equal('error');
  expect(res.body.error![0], res.text).to.include({ error: code, field, code: status });
  expect(res.body.error_description).to.be.a('string');
}

/** Well formed for xmllint (libxml2), fast-xml-parser's validator and Python's expat. */
function expectWellFormed(xml: string): void {
  expect(XMLValidator.validate(xml), xml).to.equal(true);
  const lint = spawnSync('xmllint', ['--noout', '-'], { input: xml, encoding: 'utf8' });
  expect(lint.status, `xmllint: ${lint.stderr}`).to.equal(0);
  const expat = spawnSync('python3', ['-c', 'import sys, xml.parsers.expat as e; e.ParserCreate().Parse(sys.stdin.buffer.read(), True)'], { input: xml });
  expect(expat.status, `expat: ${String(expat.stderr)}`).to.equal(0);
}

const settingsOf = async (seller: Seller) => (await accountRepository.get(seller.id))!.settings;
const xml = { Accept: 'application/xml' };

async function taskCount(seller: Seller): Promise<number> {
  const res = await call('task/?pagination[limit]=200', { token: seller.token });
  expect(res.status, res.text).to.equal(200);
  return (res.body.task as unknown[]).length;
}

describe('edges found by an outside client (2026-11-30)', () => {
  let seller: Seller;
  beforeEach(async () => {
    seller = await newSeller();
  });

  describe('settings keys are XML element names', () => {
    it('when POST admin/user/ sends settings keys that are no XML element name, at any depth, then 400 names each and nothing is written (it answered 200 and GET in XML was malformed)', async () => {
      const before = await settingsOf(seller);
      const settings = {
        '': 1,
        'a b': 2,
        a_b: 3,
        'a:b': 4,
        '1a': 5,
        xmlns: 6,
        a_x0020_b: 7,
        ok: 8,
        nested: { 'x y': 1, fine: { '-z': 2 } },
        list: [{ good: 1 }, { 'q?': 1 }],
      };
      const res = await call('admin/user/', { token: seller.token, body: { user: { settings } } });
      expect(res.status, res.text).to.equal(400);
      expect(res.body.ack).to.equal('error');
      const fields = res.body.error!.map((e) => e.field);
      expect(fields).to.have.members([
        'user.settings.',
        'user.settings.a b',
        'user.settings.a:b',
        'user.settings.1a',
        'user.settings.xmlns',
        'user.settings.a_x0020_b',
        'user.settings.nested.x y',
        'user.settings.nested.fine.-z',
        'user.settings.list[1].q?',
      ]);
      for (const item of res.body.error!) expect(item).to.include({ error: 'invalid_field', code: 400 });
      expect(res.body.error![1]!.description).to.contain('XML element name');
      expect(res.body.error![0]!.description).to.contain('the empty key');
      expect(await settingsOf(seller)).to.deep.equal(before);
    });

    it('when settings keys are XML names (letters beyond ASCII, digits after the first, _ - .), then they are stored and GET in XML writes each as itself, well formed', async () => {
      const settings = { größe: 'L', a_b: 3, 'a-b.c': 'x', _x: { ключ: 'v', n1: [1, 2] }, xml_tax: 'y' };
      const res = await call('admin/user/', { token: seller.token, body: { user: { settings } } });
      expect(res.status, res.text).to.equal(200);
      expect(await settingsOf(seller)).to.deep.include(settings);
      const read = await call('admin/user/', { token: seller.token, headers: xml });
      expect(read.status).to.equal(200);
      expectWellFormed(read.text);
      const parsed = new XMLParser({ parseTagValue: false }).parse(read.text).response.user.settings;
      expect(parsed).to.deep.equal({ größe: 'L', a_b: '3', 'a-b.c': 'x', _x: { ключ: 'v', n1: ['1', '2'] }, xml_tax: 'y' });
      // Each key an XML client reads it writes back as itself.
      const settingsXml = /<settings>.*<\/settings>/s.exec(read.text)![0].replace('<größe>L</größe>', '<größe>M</größe>');
      const back = await call('admin/user/', {
        token: seller.token,
        headers: { 'Content-Type': 'application/xml' },
        body: `<request><user>${settingsXml}</user></request>`,
      });
      expect(back.status, back.text).to.equal(200);
      expect(await settingsOf(seller)).to.deep.equal({ größe: 'M', a_b: '3', 'a-b.c': 'x', _x: { ключ: 'v', n1: ['1', '2'] }, xml_tax: 'y' });
    });

    it('when settings stored before the rule hold keys that are no XML name, then GET in XML is well formed and writes each under its own escape (_xHHHH_), the empty key left out; JSON answers them as stored', async () => {
      const legacy = { '': 1, 'a b': 2, a_b: 3, 'a:b': 4, '1a': 5, xmlns: 6, a_x0020_b: 7, 'x😀': 8, deep: { 'p q': [{ 'r:s': 9 }] } };
      await db()('account')
        .where({ id: seller.id })
        .update({ settings: JSON.stringify(legacy) });
      const read = await call('admin/user/', { token: seller.token, headers: xml });
      expect(read.status, read.text).to.equal(200);
      expectWellFormed(read.text);
      const parsed = new XMLParser({ parseTagValue: false }).parse(read.text).response.user.settings;
      expect(parsed).to.deep.equal({
        a_x0020_b: '2',
        a_b: '3',
        a_x003A_b: '4',
        _x0031_a: '5',
        _x0078_mlns: '6',
        a_x005F_x0020_b: '7',
        x_x0001F600_: '8',
        deep: { p_x0020_q: { r_x003A_s: '9' } },
      });
      const json = await call('admin/user/', { token: seller.token });
      expect((json.body.user as { settings: unknown }).settings).to.deep.equal(legacy);
    });

    it('when a JSON client posts back settings holding a key stored before the rule unchanged, then the write is taken; a changed one is a 400 naming it', async () => {
      const legacy = { 'a b': 2, deep: { 'p q': 1 } };
      await db()('account')
        .where({ id: seller.id })
        .update({ settings: JSON.stringify(legacy) });
      const back = await call('admin/user/', { token: seller.token, body: { user: { settings: { ...legacy, mine: 'x' } } } });
      expect(back.status, back.text).to.equal(200);
      expect(await settingsOf(seller)).to.deep.equal({ ...legacy, mine: 'x' });
      const changed = await call('admin/user/', { token: seller.token, body: { user: { settings: { 'a b': 3, deep: { 'p q': 2 }, mine: 'y' } } } });
      expect(changed.status, changed.text).to.equal(400);
      expect(changed.body.error!.map((e) => e.field)).to.have.members(['user.settings.a b', 'user.settings.deep.p q']);
      expect(await settingsOf(seller)).to.deep.equal({ ...legacy, mine: 'x' });
    });
  });

  describe('portal_account_id is what openapi.json states', () => {
    it('when portal_account_id is sent in exponent form, then 400 naming it and no task is stored (1e0 answered 201); with spaces around it or " default ", then taken', async () => {
      const id = seller.portalAccountId;
      for (const sent of [`${id}e0`, `${id}E0`, `0x${id.toString(16)}`, `${id}_0`]) {
        const res = await call('task/', { token: seller.token, body: { task: { title: 'T' }, portal_account_id: sent } });
        expectRefused(res, 400, 'invalid_field', 'portal_account_id');
        const query = await call(`task/?portal_account_id=${encodeURIComponent(sent)}`, { token: seller.token });
        expectRefused(query, 400, 'invalid_field', 'portal_account_id');
      }
      expect(await taskCount(seller)).to.equal(0);
      for (const sent of [' default ', 'default', ` ${id} `, `${id}.0`, `0${id}`, id]) {
        const res = await call('task/', { token: seller.token, body: { task: { title: `T ${String(sent)}` }, portal_account_id: sent } });
        expect(res.status, `${JSON.stringify(sent)}: ${res.text}`).to.equal(201);
      }
      expect(await taskCount(seller)).to.equal(6);
    });

    it('when a portal account id inside a body (ownPortalAccountId) is sent in exponent form, then it is refused as every integer text is (1e0 was read as 1)', () => {
      const type = Joi.object({ stock: Joi.object({ portal_account_id: list(ownPortalAccountId()) }) });
      for (const sent of ['1e0', '0x1', '1_0']) {
        expect(() => validate(type, { stock: { portal_account_id: ['2', sent] } }), sent)
          .to.throw(DomainError)
          .with.property('field', 'stock.portal_account_id[1]');
      }
      const mentions: PortalAccountMention[] = [];
      validate(type, { stock: { portal_account_id: [' 2 ', '3.0', 4] } }, '', mentions);
      expect(mentions.map((m) => m.id)).to.deep.equal([2, 3, 4]);
    });

    it('when openapi.json states the text of portal_account_id, then its pattern takes exactly the texts the validator takes', async () => {
      const spec = await call('openapi.json');
      expect(spec.status).to.equal(200);
      // Every place openapi.json states portal_account_id (query parameters and bodies).
      const patterns: string[] = [];
      const walk = (node: unknown): void => {
        if (node === null || typeof node !== 'object') return;
        const schema = node as { description?: unknown; anyOf?: { pattern?: string }[] };
        if (typeof schema.description === 'string' && schema.description.startsWith('The portal account the request acts for'))
          patterns.push(...schema.anyOf!.flatMap((s) => (s.pattern ? [s.pattern] : [])));
        Object.values(node).forEach(walk);
      };
      walk(spec.body);
      expect(patterns.length).to.be.above(0);
      const pattern = new RegExp(patterns[0]!);
      expect(new Set(patterns).size).to.equal(1);
      const texts = [
        '1',
        ' 1 ',
        '+1',
        '01',
        '1.0',
        '1.',
        '1.00',
        '2147483647',
        'default',
        ' default ',
        '1e0',
        '1E0',
        '0',
        '-1',
        '0x1',
        '1_0',
        '1.5',
        ' ',
        '',
        'Default',
        'defaults',
        '+default',
        '\t7\n',
      ];
      for (const sent of texts) {
        let taken = true;
        try {
          validate(portalAccountRef(), sent);
        } catch {
          taken = false;
        }
        expect(pattern.test(sent), JSON.stringify(sent)).to.equal(taken);
      }
    });
  });

  it('when pagination[page] has more than 9 digits, then the 400 names the limit (it said only "must be a whole number")', async () => {
    for (const page of ['2147483647', '1000000000']) {
      const res = await call(`system/country/?pagination[page]=${page}`, { token: seller.token });
      expectRefused(res, 400, 'invalid_field', 'pagination[page]');
      expect(res.body.error![0]!.description).to.equal('pagination[page] must be a whole number from 0 to 999999999');
    }
    const last = await call('system/country/?pagination[page]=999999999', { token: seller.token });
    expect(last.status, last.text).to.equal(200);
    const limit = await call('system/country/?pagination[limit]=1000000000', { token: seller.token });
    expectRefused(limit, 400, 'invalid_field', 'pagination[limit]');
    expect(limit.body.error![0]!.description).to.equal('pagination[limit] must be a whole number from 1 to 200');
  });

  describe('a DOCTYPE is refused where it declares one, not where it is text', () => {
    const post = (body: string) => call('task/', { token: seller.token, headers: { 'Content-Type': 'application/xml' }, body });

    it('when an XML text holds <!DOCTYPE in CDATA or a comment, then it is text and the task is stored as sent (it was 400 xml_doctype_refused)', async () => {
      const html = '<!DOCTYPE html><html><body><p>Tasse &amp; Teller</p></body></html>';
      const res = await post(`<?xml version="1.0"?><!-- <!DOCTYPE x> --><request><task><title>T</title><text><![CDATA[${html}]]></text></task></request>`);
      expect(res.status, res.text).to.equal(201);
      const read = await call(`task/?filter[id]=${String(res.body.task_id)}`, { token: seller.token });
      expect((read.body.task as { text: string }[])[0]!.text).to.equal(html);
      const entity = await post('<request><task><title>T2</title><text><![CDATA[<!ENTITY x "y">]]></text></task></request>');
      expect(entity.status, entity.text).to.equal(201);
      expect(await taskCount(seller)).to.equal(2);
    });

    it('when a DOCTYPE or ENTITY declaration stands outside CDATA and comments (in the prolog, among elements, after a CDATA in an attribute), then 400 xml_doctype_refused naming body and nothing is stored', async () => {
      const bodies = [
        '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x "boom">]><request><task><title>&x;</title></task></request>',
        '<!-- a --><!doctype r><request><task><title>T</title></task></request>',
        '<request><task><title>T</title></task><!DOCTYPE r [<!ENTITY x "boom">]></request>',
        '<request><task><title>T</title><text><![CDATA[a]]><!ENTITY x "boom"></text></task></request>',
        '<request a="<![CDATA["><!DOCTYPE r [<!ENTITY x "boom">]><task><title>&x;</title></task>]]></request>',
        '<?pi <![CDATA[ ?><!DOCTYPE r [<!ENTITY x "boom">]><request><task><title>&x;</title></task></request>]]>',
      ];
      for (const body of bodies) expectRefused(await post(body), 400, 'xml_doctype_refused', 'body');
      expect(await taskCount(seller)).to.equal(0);
    });
  });
});
