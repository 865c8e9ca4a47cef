/** What the market_d suites through Kontor's API share: a seller with an Amazon.de portal account and an item with CIA on there. */
import { expect } from 'chai';
import { createPortalAccount } from '../../lib/admin/portal-account-admin.service';
import { call, newSeller } from '../support/api';

/** A new seller's market_d portal account and an item of 5 (EAN, 19.90) with CIA on there; `fields` add to its market_d and cia.market_d. */
export async function amazonItem(sku: string, fields: { market_d?: Record<string, unknown>; cia?: Record<string, unknown> } = {}) {
  const seller = await newSeller();
  const { id: portalAccountId } = (await createPortalAccount(seller.id, { name: 'Amazon.de', platform: 'market_d' })) as { id: number };
  const created = await call('stock/', {
    token: seller.token,
    body: {
      stock: {
        name: 'Teekanne',
        sku,
        quantity: 5,
        market_d: { id_type: 'EAN', id: '4006381333931', price: '19.90', ...fields.market_d },
        cia: { market_d: { is_active: true, portal_account_id: [portalAccountId], ...fields.cia } },
      },
    },
  });
  expect(created.status, created.text).to.equal(201);
  return { seller, portalAccountId, stockId: Number(created.body.stock_id) };
}
