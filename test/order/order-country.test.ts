/**
 * An order's address countries against GET system/country/ (document 1: an id a field names comes
 * from its reference): every listed country is taken, a code the reference lacks ("UK", "EL",
 * "XX") is a 400 unknown_country naming the field, in JSON, XML and order/list/, and nothing is
 * written. lib/order/order-country.ts.
 */
import { expect } from 'chai';
import { call, newSeller, query, Seller } from '../support/api';
import { createOrder, orderBody, readOrder } from './helpers';

async function orderCount(seller: Seller): Promise<number> {
  const res = await call(`admin/customer/?${query({ filter: { email: ['country@example.com'] } })}`, { token: seller.token });
  expect(res.status, res.text).to.equal(200);
  return (res.body.customer as unknown[]).length;
}

describe('order address countries (GET system/country/)', () => {
  it('when an address names a country of GET system/country/, then the order takes it, in any case, and reads it back uppercase', async () => {
    const seller = await newSeller();
    const list = await call(`system/country/?${query({ select: { id: 1 }, pagination: { limit: 200 } })}`, { token: seller.token });
    const page2 = await call(`system/country/?${query({ select: { id: 1 }, pagination: { limit: 200, page: 2 } })}`, { token: seller.token });
    const ids = [...(list.body.country as { id: string }[]), ...(page2.body.country as { id: string }[])].map((c) => c.id);
    expect(ids).to.include.members(['DE', 'GB', 'GR', 'XK']);
    // order/list/ takes 200 at most (document 1, Limits).
    for (let from = 0; from < ids.length; from += 200) {
      const part = ids.slice(from, from + 200);
      const created = await call('order/list/', {
        token: seller.token,
        body: {
          order: part.map((id) =>
            orderBody({ customer: { email: 'buyer@example.com', address: { country_iso2: id } }, shipping: { address: { country_iso2: id } } }),
          ),
        },
      });
      expect(created.status, created.text).to.equal(207);
      expect((created.body.response as { code: number }[]).map((r) => r.code)).to.deep.equal(part.map(() => 201));
    }
    const orderId = await createOrder(seller, { customer: { email: 'buyer@example.com', address: { country_iso2: 'gr' } } });
    expect(((await readOrder(seller, orderId)).customer.address as { country_iso2: string }).country_iso2).to.equal('GR');
  });

  it('when an address names a code GET system/country/ lacks, then 400 unknown_country names the field and nothing is written', async () => {
    const seller = await newSeller();
    for (const [order, field] of [
      [{ customer: { email: 'country@example.com', address: { country_iso2: 'UK' } } }, 'order.customer.address.country_iso2'],
      [{ customer: { email: 'country@example.com' }, shipping: { address: { country_iso2: 'EL' } } }, 'order.shipping.address.country_iso2'],
      [{ customer: { email: 'country@example.com', address: { country_iso2: 'xx' } } }, 'order.customer.address.country_iso2'],
    ] as const) {
      const res = await call('order/', { token: seller.token, body: { order } });
      expect(res.status, res.text).to.equal(400);
      expect(res.body.error![0]).to.include({ error: 'unknown_country', field, code: 400 });
    }
    const xml = await call('order/', {
      token: seller.token,
      headers: { 'Content-Type': 'application/xml', Accept: 'application/xml' },
      body: '<request><order><customer><email>country@example.com</email><address><country_iso2>UK</country_iso2></address></customer></order></request>',
    });
    expect(xml.status, xml.text).to.equal(400);
    expect(xml.text).to.contain('<error>unknown_country</error>').and.contain('<field>order.customer.address.country_iso2</field>');
    expect(await orderCount(seller)).to.equal(0);
  });

  it('when an update or an order/list/ item names an unknown country, then that item is refused naming its field and the order keeps its address', async () => {
    const seller = await newSeller();
    const orderId = await createOrder(seller, {
      customer: { email: 'buyer@example.com', address: { city: 'Athens', country_iso2: 'GR' } },
      shipping: { address: { country_iso2: 'GR' } },
    });
    const update = await call(`order/${orderId}/`, { token: seller.token, body: { order: { customer: { address: { country_iso2: 'EL' } } } } });
    expect(update.status, update.text).to.equal(400);
    expect(update.body.error![0]).to.include({ error: 'unknown_country', field: 'order.customer.address.country_iso2' });
    expect((await readOrder(seller, orderId)).customer.address).to.include({ city: 'Athens', country_iso2: 'GR' });

    const list = await call('order/list/', {
      token: seller.token,
      body: {
        order: [
          orderBody({ shipping: { address: { country_iso2: 'DE' } } }),
          { id: orderId, shipping: { address: { country_iso2: 'UK' } } },
          orderBody({ customer: { email: 'country@example.com' }, shipping: { address: { country_iso2: 'UK' } } }),
        ],
      },
    });
    expect(list.status, list.text).to.equal(207);
    const [first, second, third] = list.body.response as { code: number; error?: { error: string; field: string }[] }[];
    expect(first!.code).to.equal(201);
    expect(second!.code).to.equal(400);
    expect(second!.error![0]).to.include({ error: 'unknown_country', field: 'order[1].shipping.address.country_iso2' });
    expect(third!.code).to.equal(400);
    expect(third!.error![0]).to.include({ error: 'unknown_country', field: 'order[2].shipping.address.country_iso2' });
    expect(await orderCount(seller)).to.equal(0);
    expect((await readOrder(seller, orderId)).shipping.address).to.include({ country_iso2: 'GR' });
  });
});
