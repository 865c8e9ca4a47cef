/**
 * A seller that can be invoiced: the company address support sets (`kontor user address`) and
 * settings.invoice as the seller writes it with POST admin/user/. Without them Kontor issues no
 * invoice (lib/invoice/invoice-requirements.ts).
 */
import { expect } from 'chai';
import { setAccountAddress } from '../../lib/account';
import { call, Seller } from './api';

export const sellerAddress = { name: 'Kontor Testhandel GmbH', street: 'Hauptstraße 1', zip: '10115', city: 'Berlin', country_iso2: 'DE' };

export const invoiceSettings = {
  vat_id: 'DE123456789',
  iban: 'DE02120300000000202051',
  locale: 'de-DE',
  phone: '+49 30 1234567',
  contact_name: 'Rechnungsstelle',
  email: 'rechnung@example.com',
};

export async function giveInvoiceDetails(
  seller: Seller,
  settings: Record<string, unknown> = {},
  address: Record<string, string> = sellerAddress,
): Promise<Seller> {
  await setAccountAddress(seller.id, address);
  const res = await call('admin/user/', { token: seller.token, body: { user: { settings: { invoice: { ...invoiceSettings, ...settings } } } } });
  expect(res.status, res.text).to.equal(200);
  return seller;
}
