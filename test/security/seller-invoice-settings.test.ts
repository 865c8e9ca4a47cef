/**
 * settings.invoice of Admin_user_type is the seller's identity on every invoice Kontor issues (IBAN
 * and BIC the buyers pay to, VAT id, tax number, contact; lib/invoice/README.md). Document 2 makes
 * settings "free client settings" that admin_w writes, so a third-party client (even one bound to a
 * single portal account) could put its own IBAN on the invoices of every portal account. Only the
 * seller's own login changes it; clients keep their settings under their own keys.
 */
import { expect } from 'chai';
import { call, newSeller, Seller } from '../support/api';
import { clientToken } from '../support/bound-client';

const sellerIban = { iban: 'DE02120300000000202051', bic: 'BYLADEM1001', vat_id: 'DE123456789' };

async function settingsOf(seller: Seller): Promise<Record<string, unknown>> {
  const res = await call('admin/user/', { token: seller.token });
  expect(res.status, res.text).to.equal(200);
  return (res.body.user as { settings: Record<string, unknown> }).settings;
}

describe("the seller's invoice settings are the seller's (admin/user/ settings.invoice)", () => {
  let seller: Seller;
  let bound: string;
  let crossAccount: string;

  before(async () => {
    seller = await newSeller();
    const set = await call('admin/user/', { token: seller.token, body: { user: { settings: { invoice: sellerIban } } } });
    expect(set.status, set.text).to.equal(200);
    bound = await clientToken(seller, 'iban-bound', seller.portalAccountId, 'admin_r admin_w');
    crossAccount = await clientToken(seller, 'iban-all', 'all', 'admin_r admin_w');
  });

  for (const [who, token] of [
    ['a client bound to one portal account', () => bound],
    ['a client granted all portal accounts', () => crossAccount],
  ] as const) {
    it(`when ${who} writes settings.invoice (its own IBAN), then 400 names user.settings.invoice and the invoices keep the seller's IBAN`, async () => {
      const res = await call('admin/user/', {
        token: token(),
        body: { user: { settings: { invoice: { ...sellerIban, iban: 'GB33BUKB20201555555555' } } } },
      });
      expect(res.status, res.text).to.equal(400);
      expect(res.body.error![0]).to.include({ error: 'invalid_field', field: 'user.settings.invoice' });
      expect((await settingsOf(seller)).invoice).to.deep.equal(sellerIban);
    });
  }

  it('when a client writes its own keys, also beside settings.invoice sent back unchanged, then they are stored', async () => {
    const read = await call('admin/user/', { token: bound });
    const settings = (read.body.user as { settings: Record<string, unknown> }).settings;
    const res = await call('admin/user/', { token: bound, body: { user: { settings: { ...settings, erp: { sync: true } } } } });
    expect(res.status, res.text).to.equal(200);
    expect(await settingsOf(seller)).to.deep.equal({ invoice: sellerIban, erp: { sync: true } });
  });

  it("when the seller's own token changes settings.invoice, then it is stored", async () => {
    const next = { ...sellerIban, iban: 'DE89370400440532013000' };
    const res = await call('admin/user/', { token: seller.token, body: { user: { settings: { invoice: next } } } });
    expect(res.status, res.text).to.equal(200);
    expect((await settingsOf(seller)).invoice).to.deep.equal(next);
  });
});
