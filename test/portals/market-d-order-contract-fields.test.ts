/**
 * Amazon orders carrying only what orders_2026-01-01.json promises: of an Order only orderId,
 * createdTime, lastUpdatedTime, salesChannel and orderItems are required, of an OrderItem only
 * orderItemId, quantityOrdered and product (none of whose fields is); `buyer` and `recipient` come
 * only with the roles that show personal data; Money.amount is a Decimal string "with no loss of
 * precision" (a yen amount has no decimals). Each test reshapes what the sandbox's Amazon serves as
 * the contract allows (SandboxOrder.reshape; the gate checks the answer and the suite asserts no
 * violation), imports it, and reads what the seller sees through GET order/{id}/ and the stock.
 */
import { expect } from 'chai';
import { importOrders } from '../../lib/order-import/order-import.service';
import { amazonOf } from '../../sandbox/amazon.sandbox';
import { readContract } from '../../sandbox/contract/contract-files';
import { channelLoopForSuite, Sandbox } from '../fleet/support';
import { createStock, stockQuantity } from '../order/helpers';
import { newSeller, Seller } from '../support/api';
import { amazonSandboxOrder, kontorOrder, sandboxAmazonAccount, sandboxPost, taskTexts } from './channel-support';
import { answeredAddress } from '../support/order-address';

type Served = Record<string, unknown> & { orderItems: (Record<string, unknown> & { product: Record<string, unknown> })[] };

/** Every order the contract shows (its sandbox responses of searchOrders and getOrder), once each. */
function contractOrders(): Served[] {
  const found = new Map<string, Served>();
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === 'object') {
      const o = value as Served;
      if (typeof o.orderId === 'string' && Array.isArray(o.orderItems)) found.set(JSON.stringify(o), o);
      else Object.values(o).forEach(walk);
    }
  };
  walk(readContract('ebay-amazon', 'orders_2026-01-01.json').paths);
  return [...found.values()];
}

describe('Amazon orders with only what the Orders API v2026-01-01 contract promises', function () {
  this.timeout(60000);
  let sandbox: Sandbox;
  channelLoopForSuite((loop) => ({ sandbox } = loop));

  /** An order at the sandbox's Amazon, served reshaped by `reshape` from then on. */
  async function sale(seller: Seller, marketplaceId: string, body: Record<string, unknown>, reshape: (served: Served) => void) {
    const placed = await amazonSandboxOrder(sandbox, seller, marketplaceId, body);
    amazonOf(sandbox.state).orders.get(placed.orderId)!.reshape = (served) => reshape(served as Served);
    return placed;
  }

  async function imported(seller: Seller, amazonId: number, id: string, key: string) {
    const run = await importOrders({ accountId: seller.id, portalAccountId: amazonId }, key);
    expect(run.orders, JSON.stringify(await taskTexts(seller))).to.deep.include({ created: 1 });
    return (await kontorOrder(seller, id))!;
  }

  it('when the application has no role for personal data (no buyer, no recipient), then the order is imported paid with its stock taken and no address', async () => {
    const seller = await newSeller();
    const stockId = await createStock(seller, 'CF-AMZ-NOPII', 10);
    const { amazonId, orderId } = await sale(
      seller,
      'A1PA6795UKMFR9',
      { lines: [{ sku: 'CF-AMZ-NOPII', quantity: 2, price: '14.95', shipping: '3.90' }] },
      (o) => {
        delete o.buyer;
        delete o.recipient;
      },
    );

    const kontor = await imported(seller, amazonId, orderId, 'cf-amz-nopii');
    expect(kontor.customer).to.deep.include({ username: orderId });
    expect(kontor.customer.email ?? null).to.equal(null);
    expect(kontor.shipping.address).to.deep.equal(answeredAddress());
    expect(kontor.line.map((l) => [l.sku, l.quantity, l.price])).to.deep.equal([['CF-AMZ-NOPII', '2', '14.95']]);
    expect([kontor.shipping.fee, kontor.invoice_amount, kontor.paid_amount, kontor.status.is_paid]).to.deep.equal(['3.90', '33.80', '33.80', true]);
    expect(await stockQuantity(seller, stockId)).to.equal(8);
  });

  it('when Amazon lists an order placed elsewhere that it fulfils (salesChannel NON_AMAZON, Multi-Channel Fulfilment), then only the Amazon order is imported and only its units leave the stock', async () => {
    const seller = await newSeller();
    const stockId = await createStock(seller, 'CF-AMZ-MCF', 10);
    const { amazonId, orderId } = await sale(seller, 'A1PA6795UKMFR9', { lines: [{ sku: 'CF-AMZ-MCF', quantity: 1, price: '9.90' }] }, () => {});
    const mcf = await sandboxPost(sandbox, '/_sandbox/amazon/orders', {
      portal_account: amazonId,
      marketplace_id: 'A1PA6795UKMFR9',
      pending_ms: 0,
      fulfilled_by: 'AMAZON',
      lines: [{ sku: 'CF-AMZ-MCF', quantity: 3, price: '9.90' }],
    });
    // SalesChannel.channelName: "The name of the sales platform or channel where the customer placed this order" (AMAZON, NON_AMAZON).
    amazonOf(sandbox.state).orders.get(mcf.order_id as string)!.reshape = (o) => {
      o.salesChannel = { channelName: 'NON_AMAZON', marketplaceId: 'A1ZFFQZ3HTUKT9', marketplaceName: 'Non-Amazon' };
    };
    const run = await importOrders({ accountId: seller.id, portalAccountId: amazonId }, 'cf-amz-mcf');
    expect(run.orders).to.deep.include({ created: 1 });
    expect((await kontorOrder(seller, orderId))!.line.map((l) => [l.sku, l.quantity])).to.deep.equal([['CF-AMZ-MCF', '1']]);
    expect(await kontorOrder(seller, mcf.order_id as string)).to.equal(undefined);
    expect(await stockQuantity(seller, stockId)).to.equal(9);
    expect(await taskTexts(seller)).to.deep.equal([]);
  });

  it('when a yen order’s amounts have no decimals ("1980"), then its prices, fee and payment are those yen', async () => {
    const seller = await newSeller();
    await createStock(seller, 'CF-AMZ-JPY', 10);
    const { amazonId, orderId } = await sale(
      seller,
      'A1VC38T7YXB528',
      { currency: 'JPY', lines: [{ sku: 'CF-AMZ-JPY', quantity: 2, price: '1980.00', shipping: '350.00' }] },
      (o) => {
        // Every Money of the order as a yen amount: no decimals.
        const whole = (value: unknown): void => {
          if (Array.isArray(value)) value.forEach(whole);
          else if (value && typeof value === 'object') {
            const m = value as Record<string, unknown>;
            if (typeof m.amount === 'string' && m.currencyCode === 'JPY') m.amount = m.amount.replace(/\.00$/, '');
            Object.values(m).forEach(whole);
          }
        };
        whole(o);
      },
    );

    const kontor = await imported(seller, amazonId, orderId, 'cf-amz-jpy');
    expect(kontor.currency_id).to.equal('JPY');
    expect(kontor.line.map((l) => [l.quantity, l.price])).to.deep.equal([['2', '1980.00']]);
    expect([kontor.shipping.fee, kontor.invoice_amount, kontor.paid_amount]).to.deep.equal(['350.00', '4310.00', '4310.00']);
  });

  it('when an item names no SKU, title or ASIN (product is empty), then the order is imported with that line unlinked and a task naming it', async () => {
    const seller = await newSeller();
    const stockId = await createStock(seller, 'CF-AMZ-BARE', 10);
    const { amazonId, orderId } = await sale(
      seller,
      'A1PA6795UKMFR9',
      {
        lines: [
          { sku: 'CF-AMZ-BARE', quantity: 1, price: '10.00' },
          { sku: 'CF-AMZ-NOSKU', quantity: 1, price: '5.00' },
        ],
      },
      (o) => {
        const price = o.orderItems[1]!.product.price;
        o.orderItems[1]!.product = price ? { price } : {};
      },
    );

    const kontor = await imported(seller, amazonId, orderId, 'cf-amz-bare');
    expect(kontor.line.map((l) => [l.sku ?? null, l.quantity, l.price, l.stock_align_id ?? null])).to.deep.equal([
      ['CF-AMZ-BARE', '1', '10.00', `ID_${stockId}`],
      [null, '1', '5.00', null],
    ]);
    expect(String(kontor.line[1]!.name)).to.not.equal('');
    expect([kontor.invoice_amount, kontor.paid_amount]).to.deep.equal(['15.00', '15.00']);
    expect((await taskTexts(seller)).join('\n')).to.contain('the channel names no SKU');
  });

  it('when an unshipped order’s items carry no unit price and no proceeds, then it is imported paid and its stock taken', async () => {
    const seller = await newSeller();
    const stockId = await createStock(seller, 'CF-AMZ-NOPRICE', 10);
    const { amazonId, orderId } = await sale(seller, 'A1PA6795UKMFR9', { lines: [{ sku: 'CF-AMZ-NOPRICE', quantity: 3, price: '4.00' }] }, (o) => {
      delete o.proceeds;
      for (const item of o.orderItems) {
        delete item.proceeds;
        delete item.product.price;
      }
    });

    const kontor = await imported(seller, amazonId, orderId, 'cf-amz-noprice');
    expect(kontor.status.is_paid).to.equal(true);
    expect(kontor.line.map((l) => [l.sku, l.quantity])).to.deep.equal([['CF-AMZ-NOPRICE', '3']]);
    expect(await stockQuantity(seller, stockId)).to.equal(7);
  });

  it('when an order is first read CANCELLED and its items carry no price (never priced while Pending), then it is imported cancelled and takes no stock', async () => {
    const seller = await newSeller();
    const stockId = await createStock(seller, 'CF-AMZ-CANC', 10);
    const { amazonId, orderId } = await sale(
      seller,
      'A1PA6795UKMFR9',
      { status: 'CANCELLED', lines: [{ sku: 'CF-AMZ-CANC', quantity: 2, price: '8.00' }] },
      (o) => {
        delete o.proceeds;
        for (const item of o.orderItems) {
          delete item.proceeds;
          delete item.product.price;
        }
      },
    );

    const kontor = await imported(seller, amazonId, orderId, 'cf-amz-canc');
    expect([kontor.status.is_cancelled, kontor.status.is_paid]).to.deep.equal([true, false]);
    expect(await stockQuantity(seller, stockId)).to.equal(10);
  });

  it('when Amazon writes an amount as RFC 7159 allows (an exponent, a third decimal), then it is read as that number: the line, fee and payment are what the buyer paid', async () => {
    const seller = await newSeller();
    await createStock(seller, 'CF-AMZ-EXP', 10);
    const { amazonId, orderId } = await sale(
      seller,
      'A1PA6795UKMFR9',
      { lines: [{ sku: 'CF-AMZ-EXP', quantity: 2, price: '19.90', shipping: '4.50' }] },
      (o) => {
        const rewrite = (value: unknown): void => {
          if (Array.isArray(value)) value.forEach(rewrite);
          else if (value && typeof value === 'object') {
            const m = value as Record<string, unknown>;
            // "A decimal number with no loss of precision. Follows RFC 7159 for number representation" (Decimal).
            if (m.amount === '19.90') m.amount = '1.99E+1';
            else if (m.amount === '39.80') m.amount = '3980e-2';
            else if (m.amount === '4.50') m.amount = '4.500';
            else if (m.amount === '44.30') m.amount = '44.300';
            Object.values(m).forEach(rewrite);
          }
        };
        rewrite(o);
      },
    );

    const kontor = await imported(seller, amazonId, orderId, 'cf-amz-exp');
    expect(kontor.line.map((l) => [l.quantity, l.price])).to.deep.equal([['2', '19.90']]);
    expect([kontor.shipping.fee, kontor.invoice_amount, kontor.paid_amount]).to.deep.equal(['4.50', '44.30', '44.30']);
  });
  it('when an Amazon Business buyer got a quantity discount (ITEM below unitPrice, which is "before any quantity-based calculations"), then the line bills what the buyer paid and the order is paid in full', async () => {
    const seller = await newSeller();
    const stockId = await createStock(seller, 'CF-AMZ-QTY', 20);
    const { amazonId, orderId } = await sale(
      seller,
      'A1PA6795UKMFR9',
      { lines: [{ sku: 'CF-AMZ-QTY', quantity: 10, price: '12.00', shipping: '5.90' }] },
      (o) => {
        // The business price tier for 10 units: 10.80 a unit, 108.00 in all (ItemProceeds' ITEM, the
        // item's and the order's totals with it); unitPrice stays the price of one unit.
        const lower = (m: { amount: string }) => (m.amount = (Number(m.amount) - 12).toFixed(2));
        o.programs = ['AMAZON_BUSINESS'];
        const item = o.orderItems[0]! as {
          product: { price: { priceDesignation?: string } };
          proceeds: { proceedsTotal: { amount: string }; breakdowns: { type: string; subtotal: { amount: string } }[] };
        };
        item.product.price.priceDesignation = 'BUSINESS_PRICE';
        lower(item.proceeds.breakdowns.find((b) => b.type === 'ITEM')!.subtotal);
        lower(item.proceeds.proceedsTotal);
        const proceeds = o.proceeds as { grandTotal: { amount: string }; breakdowns: { type: string; subtotal: { amount: string } }[] };
        lower(proceeds.breakdowns.find((b) => b.type === 'ITEM')!.subtotal);
        lower(proceeds.grandTotal);
      },
    );

    const kontor = await imported(seller, amazonId, orderId, 'cf-amz-qty');
    expect(kontor.line.map((l) => [l.sku, l.quantity, l.price])).to.deep.equal([['CF-AMZ-QTY', '10', '10.80']]);
    expect([kontor.shipping.fee, kontor.invoice_amount, kontor.paid_amount]).to.deep.equal(['5.90', '113.90', '113.90']);
    expect(await stockQuantity(seller, stockId)).to.equal(10);
  });

  it('when Amazon sends a free replacement (associatedOrders REPLACEMENT_ORIGINAL_ID, ITEM and grandTotal 0.00 beside the unit price), then it takes its stock and bills nothing, not the unit price as paid', async () => {
    const seller = await newSeller();
    const stockId = await createStock(seller, 'CF-AMZ-REPL', 10);
    const { amazonId, orderId } = await sale(seller, 'A1PA6795UKMFR9', { lines: [{ sku: 'CF-AMZ-REPL', quantity: 1, price: '19.90' }] }, (o) => {
      o.associatedOrders = [{ orderId: '302-0000000-0000001', associationType: 'REPLACEMENT_ORIGINAL_ID' }];
      const zero = (value: unknown): void => {
        if (Array.isArray(value)) value.forEach(zero);
        else if (value && typeof value === 'object') {
          const m = value as Record<string, unknown>;
          if (typeof m.amount === 'string' && m !== (o.orderItems[0]!.product.price as { unitPrice?: unknown } | undefined)?.unitPrice) m.amount = '0.00';
          Object.values(m).forEach(zero);
        }
      };
      zero(o.proceeds);
      for (const item of o.orderItems) zero(item.proceeds);
    });

    const kontor = await imported(seller, amazonId, orderId, 'cf-amz-repl');
    expect(kontor.line.map((l) => [l.sku, l.quantity, l.price])).to.deep.equal([['CF-AMZ-REPL', '1', '0.00']]);
    expect([kontor.invoice_amount, kontor.status.is_paid]).to.deep.equal(['0.00', true]);
    expect(await stockQuantity(seller, stockId)).to.equal(9);
  });

  it('when a pre-order is PENDING_AVAILABILITY and an Amazon-fulfilled order UNFULFILLABLE, then the first is unpaid and takes its stock, the second takes none', async () => {
    const seller = await newSeller();
    const pre = await createStock(seller, 'CF-AMZ-PRE', 10);
    const afn = await createStock(seller, 'CF-AMZ-UNF', 10);
    const amazonId = await sandboxAmazonAccount(sandbox, seller, 'A1PA6795UKMFR9');
    const place = async (body: Record<string, unknown>) =>
      (await sandboxPost(sandbox, '/_sandbox/amazon/orders', { portal_account: amazonId, marketplace_id: 'A1PA6795UKMFR9', pending_ms: 0, ...body }))
        .order_id as string;
    const preorder = await place({ status: 'PENDING_AVAILABILITY', lines: [{ sku: 'CF-AMZ-PRE', quantity: 2, price: '30.00' }] });
    const unfulfillable = await place({ status: 'UNFULFILLABLE', fulfilled_by: 'AMAZON', lines: [{ sku: 'CF-AMZ-UNF', quantity: 1, price: '12.00' }] });

    const run = await importOrders({ accountId: seller.id, portalAccountId: amazonId }, 'cf-amz-states');
    expect(run.orders).to.deep.include({ created: 2 });
    const first = (await kontorOrder(seller, preorder))!;
    expect([first.status.is_paid, first.status.is_cancelled, first.paid_amount ?? '0.00']).to.deep.equal([false, false, '0.00']);
    expect(await stockQuantity(seller, pre)).to.equal(8);
    const second = (await kontorOrder(seller, unfulfillable))!;
    expect(second.line[0]!.stock_align_id ?? null).to.equal(null);
    expect(await stockQuantity(seller, afn)).to.equal(10);
  });

  it('when the tax a US seller collects is more than 9999.99 % of an item’s net price (a penny item taxed 1.00), then the order is imported, its line gross without a rate, paid in full', async () => {
    const seller = await newSeller();
    const stockId = await createStock(seller, 'CF-AMZ-PENNY', 10);
    const { amazonId, orderId } = await sale(
      seller,
      'ATVPDKIKX0DER',
      { currency: 'USD', tax_collected_by: 'SELLER', lines: [{ sku: 'CF-AMZ-PENNY', quantity: 1, price: '0.01', tax: '1.00' }] },
      () => undefined,
    );

    const kontor = await imported(seller, amazonId, orderId, 'cf-amz-penny');
    expect(kontor.line.map((l) => [l.sku, l.price, l.tax ?? null])).to.deep.equal([['CF-AMZ-PENNY', '1.01', null]]);
    expect([kontor.invoice_amount, kontor.paid_amount]).to.deep.equal(['1.01', '1.01']);
    expect(await stockQuantity(seller, stockId)).to.equal(9);
  });

  describe('every order orders_2026-01-01.json shows', () => {
    for (const example of contractOrders()) {
      const marketplaceId = (example.salesChannel as { marketplaceId: string }).marketplaceId;
      const status = (example.fulfillment as { fulfillmentStatus: string }).fulfillmentStatus;
      it(`when Amazon serves order ${example.orderId} (${marketplaceId}, ${status}) as the contract shows it, then it is imported with its lines and, paid, stands at what the seller receives`, async () => {
        const seller = await newSeller();
        for (const item of example.orderItems) await createStock(seller, String(item.product.sellerSku), 10);
        // The store's order keeps its own id and times (the fetch's window and the import's key); the rest is the contract's.
        const { amazonId, orderId } = await sale(seller, marketplaceId, { lines: [{ sku: 'CF-AMZ-EXAMPLE', quantity: 1 }] }, (o) => {
          const own = { orderId: o.orderId, createdTime: o.createdTime, lastUpdatedTime: o.lastUpdatedTime };
          for (const key of Object.keys(o)) delete o[key];
          Object.assign(o, structuredClone(example), own);
        });

        const kontor = await imported(seller, amazonId, orderId, `cf-amz-example-${example.orderId}`);
        expect(kontor.line.map((l) => [l.sku, l.quantity])).to.deep.equal(example.orderItems.map((i) => [i.product.sellerSku, String(i.quantityOrdered)]));
        expect(kontor.status.is_paid).to.equal(status !== 'PENDING' && status !== 'PENDING_AVAILABILITY' && status !== 'CANCELLED');
        if (kontor.status.is_paid) expect(kontor.paid_amount).to.equal(kontor.invoice_amount);
      });
    }
  });
});
