/** What the Kaufland suites through Kontor's API share: a seller with a Kaufland account and an item to list there. */
import { expect } from 'chai';
import { createPortalAccount } from '../../lib/admin/portal-account-admin.service';
import { jobEnd } from '../fleet/support';
import { call, newSeller } from '../support/api';

/** A seller with a market_e portal account (the sandbox's Kaufland) and an item of 10 with CIA on there; `list` lists it by portal_upload and answers the job. */
export async function kauflandItem(sku: string) {
  const seller = await newSeller();
  const { id: portalAccountId } = await createPortalAccount(seller.id, { name: 'Kaufland.de', platform: 'market_e' });
  const created = await call('stock/', {
    token: seller.token,
    body: {
      stock: {
        name: 'Teekanne',
        sku,
        quantity: 10,
        market_e: { ean: '4006381333931', price: '24.90', delivery_time: '1-2' },
        cia: { market_e: { is_active: true } },
      },
    },
  });
  expect(created.status, created.text).to.equal(201);
  const stockId = Number(created.body.stock_id);
  const list = async () => {
    const upload = await call(`stock/${stockId}/portal_upload/`, {
      token: seller.token,
      body: { portal_upload: { market_e: [{ action: 'list', portal_account_id: portalAccountId }] } },
    });
    return jobEnd(seller.token, (upload.body.response as { job_id: string }[])[0]!.job_id);
  };
  return { seller, portalAccountId, stockId, list };
}
