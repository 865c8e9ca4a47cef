import { expect } from 'chai';
import { call, newSeller, Seller } from './support/api';

describe('request conventions', () => {
  let seller: Seller;
  before(async () => { seller = await newSeller(); });

  it('when a currency is read with a token, then the envelope carries ack and the payload', async () => {
    const res = await call('system/currency/EUR/', { token: seller.token });
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ ack: 'success', currency: { internal_id: 0, id: 'EUR' } });
  });
});
