/**
 * eBay orders carrying only what sell_fulfillment_v1_oas3.json promises: every field of Order,
 * LineItem, PricingSummary, Amount, Payment, FulfillmentStartInstruction, ShippingStep, Buyer and
 * Address is optional, and eBay leaves many out for real sellers ("the fullName will not be
 * returned ...", ExtendedContact.email "returned for up to 14 days from order creation",
 * FulfillmentStartInstruction.shippingStep absent for a digital or pickup order, Buyer "only the
 * buyer's eBay user ID is returned"). Each test reshapes a sandbox order as the contract allows
 * (the sandbox checks its answers against the contract; the suite asserts no violation), imports
 * it, and reads what the seller sees through GET order/{id}/ and the stock.
 */
import { expect } from 'chai';
import { importOrders } from '../../lib/order-import/order-import.service';
import { channelOrderOf } from '../../lib/portals/ebay/ebay-order.mapping';
import type { EbayOrder } from '../../sandbox/ebay-state.sandbox';
import { channelLoopForSuite, Sandbox } from '../fleet/support';
import { createStock, stockQuantity } from '../order/helpers';
import { call, newSeller, Seller } from '../support/api';
import { ebaySandboxOrder, kontorOrder, taskTexts } from './channel-support';

describe('eBay orders with only what the Fulfillment API contract promises', function () {
  this.timeout(60000);
  let sandbox: Sandbox;
  channelLoopForSuite((loop) => ({ sandbox } = loop));

  async function sale(seller: Seller, body: Record<string, unknown>) {
    const placed = await ebaySandboxOrder(sandbox, seller, body);
    return { ...placed, order: placed.order as EbayOrder };
  }

  async function imported(seller: Seller, ebayId: number, id: string, key: string) {
    const run = await importOrders({ accountId: seller.id, portalAccountId: ebayId }, key);
    expect(run.orders, JSON.stringify(await taskTexts(seller))).to.deep.include({ created: 1 });
    return (await kontorOrder(seller, id))!;
  }

  it('when a digital order names no ship-to, no buyer contact and no registration address (only the user ID), then it is imported paid, its stock taken, without addresses', async () => {
    const seller = await newSeller();
    const stockId = await createStock(seller, 'CF-EBAY-DIGI', 10);
    const { ebayId, id, order } = await sale(seller, { currency: 'EUR', lines: [{ sku: 'CF-EBAY-DIGI', quantity: 2, price: '7.50' }] });
    order.buyer = { username: 'digital_buyer' };
    order.fulfillmentStartInstructions = [{ fulfillmentInstructionsType: 'DIGITAL' }];

    const kontor = await imported(seller, ebayId, id, 'cf-ebay-digi');
    expect(kontor.customer).to.deep.include({ username: 'digital_buyer' });
    expect(kontor.customer.email ?? null).to.equal(null);
    expect(kontor.line.map((l) => [l.sku, l.quantity, l.price])).to.deep.equal([['CF-EBAY-DIGI', '2', '7.50']]);
    expect([kontor.invoice_amount, kontor.paid_amount, kontor.status.is_paid]).to.deep.equal(['15.00', '15.00', true]);
    expect(await stockQuantity(seller, stockId)).to.equal(8);
  });

  it('when an order has no buyer, no pricing summary and no payment summary, then it is imported paid at its lines’ cost in the line amounts’ currency', async () => {
    const seller = await newSeller();
    const stockId = await createStock(seller, 'CF-EBAY-BARE', 10);
    const { ebayId, id, order } = await sale(seller, { currency: 'GBP', lines: [{ sku: 'CF-EBAY-BARE', quantity: 3, price: '4.00' }] });
    delete order.buyer;
    delete order.pricingSummary;
    delete order.paymentSummary;
    delete order.fulfillmentStartInstructions;
    for (const l of order.lineItems!) delete l.deliveryCost;

    const kontor = await imported(seller, ebayId, id, 'cf-ebay-bare');
    expect(kontor.currency_id).to.equal('GBP');
    expect([kontor.invoice_amount, kontor.paid_amount, kontor.status.is_paid]).to.deep.equal(['12.00', '12.00', true]);
    expect(await stockQuantity(seller, stockId)).to.equal(7);
  });

  it('when eBay reports IN_PROGRESS fulfilment, a cancellation IN_PROGRESS and a FAILED payment, then the order is neither shipped, cancelled nor paid and takes its stock', async () => {
    const seller = await newSeller();
    const stockId = await createStock(seller, 'CF-EBAY-STATES', 10);
    const { ebayId, id, order } = await sale(seller, {
      currency: 'EUR',
      payment_status: 'FAILED',
      lines: [{ sku: 'CF-EBAY-STATES', quantity: 1, price: '9.00' }],
    });
    order.orderFulfillmentStatus = 'IN_PROGRESS';
    order.cancelStatus = { cancelState: 'IN_PROGRESS', cancelRequests: [] };

    const kontor = await imported(seller, ebayId, id, 'cf-ebay-states');
    expect([kontor.status.is_paid, kontor.status.is_shipped, kontor.status.is_cancelled]).to.deep.equal([false, false, false]);
    expect(await stockQuantity(seller, stockId)).to.equal(9);
  });

  it('when an eBay Motors order costs 149,999.99 and another line 0.00, then both are imported at those prices and paid in full', async () => {
    const seller = await newSeller();
    await createStock(seller, 'CF-EBAY-CAR', 2);
    await createStock(seller, 'CF-EBAY-FREE', 5);
    const { ebayId, id } = await sale(seller, {
      currency: 'USD',
      lines: [
        { sku: 'CF-EBAY-CAR', quantity: 1, price: '149999.99' },
        { sku: 'CF-EBAY-FREE', quantity: 2, price: '0.00' },
      ],
    });

    const kontor = await imported(seller, ebayId, id, 'cf-ebay-car');
    expect(kontor.line.map((l) => [l.sku, l.quantity, l.price])).to.deep.equal([
      ['CF-EBAY-CAR', '1', '149999.99'],
      ['CF-EBAY-FREE', '2', '0.00'],
    ]);
    expect([kontor.invoice_amount, kontor.paid_amount]).to.deep.equal(['149999.99', '149999.99']);
  });

  it('when the title and the address are in other scripts and the address names only a country eBay’s enum has beyond ISO (QM), then GET order/ shows them as given', async () => {
    const seller = await newSeller();
    await createStock(seller, 'CF-EBAY-UNI', 5);
    const { ebayId, id, order } = await sale(seller, { currency: 'EUR', lines: [{ sku: 'CF-EBAY-UNI', quantity: 1, price: '12.00' }] });
    const title = 'Ωραίο φλιτζάνι 茶杯 — Tasse “Blümchen” 🍵 Größe L, handgemacht, spülmaschinenfest';
    order.lineItems![0]!.title = title;
    order.fulfillmentStartInstructions = [
      {
        fulfillmentInstructionsType: 'SHIP_TO',
        shippingStep: { shipTo: { fullName: 'Ζωή Παπαδοπούλου 🌻', contactAddress: { countryCode: 'QM' } }, shippingServiceCode: 'DE_DHLPaket' },
      },
    ];

    const kontor = await imported(seller, ebayId, id, 'cf-ebay-uni');
    expect(kontor.line[0]).to.deep.include({ name: title });
    expect(kontor.shipping.address).to.deep.include({ name: 'Ζωή Παπαδοπούλου 🌻', country_iso2: 'QM' });
  });
  it('when an order is first read cancelled and fully refunded, then it is imported cancelled, unpaid, and takes no stock', async () => {
    const seller = await newSeller();
    const stockId = await createStock(seller, 'CF-EBAY-CANC', 10);
    const { ebayId, id, order } = await sale(seller, {
      currency: 'EUR',
      payment_status: 'FULLY_REFUNDED',
      lines: [{ sku: 'CF-EBAY-CANC', quantity: 2, price: '6.00' }],
    });
    order.cancelStatus = { cancelState: 'CANCELED', cancelledDate: order.creationDate, cancelRequests: [] };

    const kontor = await imported(seller, ebayId, id, 'cf-ebay-canc');
    expect([kontor.status.is_cancelled, kontor.status.is_paid, kontor.status.is_shipped]).to.deep.equal([true, false, false]);
    expect(await stockQuantity(seller, stockId)).to.equal(10);
  });
  it('when an unpaid order says eBay fulfils it only by its fulfilment instructions (FULFILLED_BY_EBAY, no ship-to, no program yet), then it takes no stock from the seller and says eBay ships it', async () => {
    const seller = await newSeller();
    const stockId = await createStock(seller, 'CF-EBAY-FBE', 10);
    const { ebayId, id, order } = await sale(seller, {
      currency: 'EUR',
      payment_status: 'PENDING',
      fulfilled_by: 'EBAY',
      lines: [{ sku: 'CF-EBAY-FBE', quantity: 2, price: '12.50' }],
    });
    // "When FulfillmentInstructionsType is FULFILLED_BY_EBAY, there will be no shipTo address displayed" (ShippingStep.shipTo).
    order.fulfillmentStartInstructions = [{ fulfillmentInstructionsType: 'FULFILLED_BY_EBAY' }];
    expect(order.program).to.equal(undefined);

    const kontor = await imported(seller, ebayId, id, 'cf-ebay-fbe');
    expect(kontor.line.map((l) => [l.sku, l.quantity, l.stock_align_id ?? null])).to.deep.equal([['CF-EBAY-FBE', '2', null]]);
    expect(kontor.status.is_paid).to.equal(false);
    expect(kontor.history.join('\n')).to.contain('the channel ships this order from its own warehouse');
    expect(await stockQuantity(seller, stockId)).to.equal(10);
    expect((await taskTexts(seller)).join('\n')).not.to.contain('not linked to stock');
  });
  it('when an order goes by eBay’s international shipping (ebaySupportedFulfillment: shipTo is the provider’s warehouse), then it ships to the warehouse while the buyer keeps the buyer’s own phone', async () => {
    const seller = await newSeller();
    await createStock(seller, 'CF-EBAY-GSP', 10);
    const { ebayId, id, order } = await sale(seller, {
      currency: 'USD',
      buyer: {
        username: 'uk_buyer',
        email: 'uk_buyer@example.co.uk',
        phone: '+44 20 7946 0000',
        street: '1 Oxford Street',
        city: 'London',
        zip: 'W1D 1AN',
        country_iso2: 'GB',
      },
      lines: [{ sku: 'CF-EBAY-GSP', quantity: 1, price: '30.00' }],
    });
    // "For a Global Shipping Program shipment, this is the address of the international shipping
    // provider's domestic warehouse" (ShippingStep.shipTo); its contact is "the buyer or eBay shipping
    // partner", the e-mail "the email address of the buyer, even for Global Shipping Program shipments".
    order.fulfillmentStartInstructions = [
      {
        fulfillmentInstructionsType: 'SHIP_TO',
        ebaySupportedFulfillment: true,
        finalDestinationAddress: { addressLine1: '1 Oxford Street', city: 'London', postalCode: 'W1D 1AN', countryCode: 'GB' },
        shippingStep: {
          shippingServiceCode: 'US_StandardShippingFromOutsideUS',
          shipToReferenceId: '5000012345',
          shipTo: {
            fullName: 'uk_buyer Reference #5000012345',
            email: 'uk_buyer@example.co.uk',
            primaryPhone: { phoneNumber: '+1 859 555 0100' },
            contactAddress: {
              addressLine1: '1850 Airport Exchange Blvd',
              addressLine2: '#200',
              city: 'Erlanger',
              stateOrProvince: 'KY',
              postalCode: '41025-2501',
              countryCode: 'US',
            },
          },
        },
      },
    ];

    // The shipping label: "Sellers must include this value on the shipping label immediately above the
    // street address" (ShippingStep.shipToReferenceId). Here shipTo's name carries it already: not twice.
    const shipTo = order.fulfillmentStartInstructions[0]!.shippingStep!.shipTo!;
    const named = structuredClone(shipTo);
    shipTo.fullName = 'uk_buyer';
    const kontor = await imported(seller, ebayId, id, 'cf-ebay-gsp');
    expect(kontor.shipping.address).to.deep.include({
      name: 'uk_buyer',
      name_2: 'Reference #5000012345',
      street: '1850 Airport Exchange Blvd',
      city: 'Erlanger',
      country_iso2: 'US',
    });
    const carried = structuredClone(order);
    carried.fulfillmentStartInstructions![0]!.shippingStep!.shipTo = named;
    expect(channelOrderOf(carried).shipping.address).to.not.have.property('name_2');
    expect(kontor.customer).to.deep.include({ email: 'uk_buyer@example.co.uk', phone_1: '+44 20 7946 0000' });
    expect(kontor.customer.address).to.deep.include({ city: 'London', country_iso2: 'GB' });
  });
  it('when a title and an address carry characters no database text or XML answer holds (NUL, a lone surrogate, control characters), then the order is imported with them replaced and GET order/ answers well-formed XML', async () => {
    const seller = await newSeller();
    const stockId = await createStock(seller, 'CF-EBAY-CTRL', 10);
    const { ebayId, id, order } = await sale(seller, { currency: 'EUR', lines: [{ sku: 'CF-EBAY-CTRL', quantity: 1, price: '5.00' }] });
    // JSON strings may carry any of them (RFC 8259 escapes), and no field of the contract restricts its characters.
    order.lineItems![0]!.title = 'Mug\u0000 with\u000bhandle \ud83c and\u0007 lid';
    order.fulfillmentStartInstructions![0]!.shippingStep!.shipTo!.contactAddress!.addressLine1 = 'Heidestr.\u001f17';

    const kontor = await imported(seller, ebayId, id, 'cf-ebay-ctrl');
    expect(kontor.line[0]).to.deep.include({ name: 'Mug  with handle \ufffd and  lid' });
    expect(kontor.shipping.address).to.deep.include({ street: 'Heidestr. 17' });
    expect(await stockQuantity(seller, stockId)).to.equal(9);
    const xml = await call(`order/${kontor.id}/`, { token: seller.token, headers: { Accept: 'application/xml' } });
    expect(xml.status).to.equal(200);
    // XML 1.0's Char production: tab, line feed and carriage return are the only control characters.
    // eslint-disable-next-line no-control-regex
    expect(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/.test(xml.text)).to.equal(false);
  });
  it('when the order’s first fulfilment instruction is a digital one and the next ships the other lines, then the shipping address and method are the shipping instruction’s', async () => {
    const seller = await newSeller();
    await createStock(seller, 'CF-EBAY-MIX', 10);
    const { ebayId, id, order } = await sale(seller, { currency: 'EUR', lines: [{ sku: 'CF-EBAY-MIX', quantity: 1, price: '20.00' }] });
    // FulfillmentStartInstruction: "the method of fulfillment that will be used to deliver this set of line items (this package)".
    const shipping = order.fulfillmentStartInstructions![0]!;
    order.fulfillmentStartInstructions = [{ fulfillmentInstructionsType: 'DIGITAL' }, shipping];

    const kontor = await imported(seller, ebayId, id, 'cf-ebay-mix');
    expect(kontor.shipping).to.deep.include({ method: 'DE_DHLPaket' });
    expect(kontor.shipping.address).to.deep.include({ street: 'Heidestr. 17', city: 'Köln', country_iso2: 'DE' });
  });
});
