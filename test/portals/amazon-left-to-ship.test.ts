/**
 * What Amazon has left to ship of each item when its answer has no fulfillment.quantityUnfulfilled
 * (lib/portals/amazon/shipment.ts leftToShip; orders_2026-01-01.json): the units ordered less those
 * in the order's packages. A CANCELLED package ("Package shipment termination before delivery": a
 * label the seller cancelled) shipped nothing, so its units are still to ship; counted, send_mit
 * claimed too few units and the rest of the order stayed unconfirmed at Amazon.
 */
import { expect } from 'chai';
import type { Order2026 } from '../../lib/portals/amazon/orders-2026';
import { leftToShip } from '../../lib/portals/amazon/shipment';

const order = (packages: Order2026['packages']): Order2026 => ({
  orderId: '028-0000000-0000001',
  createdTime: '2026-11-20T10:00:00Z',
  lastUpdatedTime: '2026-11-21T10:00:00Z',
  salesChannel: { channelName: 'Amazon.de', marketplaceId: 'A1PA6795UKMFR9' },
  fulfillment: { fulfillmentStatus: 'PARTIALLY_SHIPPED', fulfilledBy: 'MERCHANT' },
  orderItems: [
    { orderItemId: 'ITEM-A', quantityOrdered: 3, product: { sellerSku: 'A' } },
    { orderItemId: 'ITEM-B', quantityOrdered: 1, product: { sellerSku: 'B' } },
  ],
  packages,
});

describe('Amazon: units left to ship without quantityUnfulfilled', () => {
  it('when one package was CANCELLED and another SHIPPED, then only the shipped package’s units are gone', () => {
    const left = leftToShip(
      order([
        {
          packageReferenceId: '1',
          packageItems: [
            { orderItemId: 'ITEM-A', quantity: 2 },
            { orderItemId: 'ITEM-B', quantity: 1 },
          ],
          packageStatus: { status: 'CANCELLED', detailedStatus: 'LABEL_CANCELLED' },
        },
        { packageReferenceId: '2', packageItems: [{ orderItemId: 'ITEM-A', quantity: 1 }], packageStatus: { status: 'SHIPPED' } },
      ]),
    );
    expect(Object.fromEntries(left)).to.deep.equal({ 'ITEM-A': 2, 'ITEM-B': 1 });
  });

  it('when packages are in transit, delivered or undeliverable, then their units count as shipped', () => {
    const left = leftToShip(
      order([
        { packageReferenceId: '1', packageItems: [{ orderItemId: 'ITEM-A', quantity: 1 }], packageStatus: { status: 'IN_TRANSIT' } },
        { packageReferenceId: '2', packageItems: [{ orderItemId: 'ITEM-A', quantity: 1 }], packageStatus: { status: 'DELIVERED' } },
        { packageReferenceId: '3', packageItems: [{ orderItemId: 'ITEM-B', quantity: 1 }], packageStatus: { status: 'UNDELIVERABLE' } },
      ]),
    );
    expect(Object.fromEntries(left)).to.deep.equal({ 'ITEM-A': 1, 'ITEM-B': 0 });
  });
});
