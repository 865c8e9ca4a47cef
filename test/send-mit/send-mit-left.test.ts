/**
 * send_mit against what the channel already holds: units of an Amazon order confirmed shipped
 * before (another tool, Seller Central), the tracking URLs a Shopify fulfilment already has, and a
 * Kaufland, Amazon (FBA) or eBay (fulfilment program) order that turned out to be fulfilled by the
 * channel after the request was taken. Through POST order/{order_id}/send_mit/ and the sandbox
 * playing the channels' contracts (ordersV0.json confirmShipment, orders_2026-01-01.json
 * ItemFulfillment and fulfilledBy; admin_schema_2025-01.json FulfillmentTrackingInput;
 * seller-api-v2.openapi.json; sell_fulfillment_v1_oas3.json Program.fulfillmentProgram).
 */
import crypto from 'node:crypto';
import { expect } from 'chai';
import { config, setConfig } from '../../config';
import { closeMailer } from '../../lib/mail/mailer';
import { importOrders } from '../../lib/order-import/order-import.service';
import { queues } from '../../lib/queue/queue.registry';
import { createPortalAccount } from '../../lib/admin/portal-account-admin.service';
import { amazonOf } from '../../sandbox/amazon.sandbox';
import { kauflandOf } from '../../sandbox/kaufland.sandbox';
import { sandboxShopifyToken, shopifyOf } from '../../sandbox/shopify.sandbox';
import { MailCatcher, startMailCatcher } from '../event/servers';
import { channelLoopForSuite, jobEnd, Sandbox } from '../fleet/support';
import { createStock, readOrder } from '../order/helpers';
import { call, newSeller, Seller } from '../support/api';
import { sendMitCompleted } from './support';
import { amazonSandboxOrder, kontorOrder, sandboxPost } from '../portals/channel-support';
import { kauflandItem } from '../portals/kaufland-support';

const DE = 'A1PA6795UKMFR9';

describe('send_mit against what the channel holds already: units shipped before, tracking URLs, an order the channel took over', function () {
  this.timeout(60000);
  let sandbox: Sandbox;
  channelLoopForSuite((loop) => ({ sandbox } = loop));

  describe('Amazon: a confirmation claims only what is left to ship', () => {
    /** A seller's Amazon order of `lines` placed at the sandbox and imported. */
    async function amazonOrder(lines: { sku: string; quantity: number }[]) {
      const seller = await newSeller();
      for (const l of lines) await createStock(seller, l.sku, 10);
      const { amazonId, orderId: external } = await amazonSandboxOrder(sandbox, seller, DE, {
        currency: 'EUR',
        lines: lines.map((l) => ({ ...l, price: '20.00' })),
      });
      await importOrders({ accountId: seller.id, portalAccountId: amazonId }, `left-${amazonId}`);
      const atAmazon = () => amazonOf(sandbox.state).orders.get(external)!;
      const confirmations = () =>
        sandbox.state.requests.filter((r) => r.portal === 'market_d' && r.path === `/orders/v0/orders/${external}/shipmentConfirmation`);
      return { seller, amazonId, external, orderId: (await kontorOrder(seller, external))!.id, atAmazon, confirmations };
    }

    /** Another tool of the seller (a shipping app, as Seller Central would) confirms units through SP-API's confirmShipment. */
    async function confirmElsewhere(amazonId: number, external: string, trackingNumber: string, orderItems: { orderItemId: string; quantity: number }[]) {
      const lwa = await fetch(`${sandbox.url}/auth/o2/token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: `Atzr|sandbox-${amazonId}`, client_id: 'c', client_secret: 's' }).toString(),
      });
      const token = ((await lwa.json()) as { access_token: string }).access_token;
      const res = await fetch(`${sandbox.url}/orders/v0/orders/${external}/shipmentConfirmation`, {
        method: 'POST',
        headers: { 'x-amz-access-token': token, 'Content-Type': 'application/json' },
        body: JSON.stringify({
          marketplaceId: DE,
          packageDetail: { packageReferenceId: '1', carrierCode: 'DHL', trackingNumber, shipDate: '2026-11-24T10:00:00Z', orderItems },
        }),
      });
      expect(res.status, await res.text()).to.equal(204);
    }

    it('one of three units confirmed elsewhere, then send_mit with a code: the package claims the two left and is ok (it claimed three, which Amazon refuses, and the two went unconfirmed)', async () => {
      const { seller, amazonId, external, orderId, atAmazon, confirmations } = await amazonOrder([{ sku: 'LEFT-AMZ-1', quantity: 3 }]);
      const item = atAmazon().lines[0]!.orderItemId;
      await confirmElsewhere(amazonId, external, '00340434161094042500', [{ orderItemId: item, quantity: 1 }]);

      const result = await sendMitCompleted(seller, orderId, { deliverer: 'DHL', code: ['00340434161094042557'], date: '2026-11-25' });
      expect(result, JSON.stringify(result)).to.deep.include({ platform_status: 'ok', shipment: [{ code: '00340434161094042557', ok: true }] });
      const sent = confirmations().at(-1)!.body as { packageDetail: { packageReferenceId: string; orderItems: { orderItemId: string; quantity: number }[] } };
      expect(sent.packageDetail).to.deep.include({ packageReferenceId: '2', orderItems: [{ orderItemId: item, quantity: 2 }] });
      expect(atAmazon().status).to.equal('SHIPPED');
      expect(atAmazon().lines[0]!.quantityShipped).to.equal(3);
      expect(atAmazon().packages.map((k) => [k.trackingNumber, k.packageItems[0]!.quantity])).to.deep.equal([
        ['00340434161094042500', 1],
        ['00340434161094042557', 2],
      ]);
      const order = await readOrder(seller, orderId);
      expect(order.status).to.deep.include({ is_shipped: true });
      expect(order.shipping).to.deep.include({ platform_status: 'ok', code: '00340434161094042557' });
    });

    it('a line shipped elsewhere whole, then send_mit with two codes: the package of the other line is confirmed, the one with nothing left is refused naming it without a call (partially_ok)', async () => {
      const { seller, amazonId, external, orderId, atAmazon, confirmations } = await amazonOrder([
        { sku: 'LEFT-AMZ-A', quantity: 1 },
        { sku: 'LEFT-AMZ-B', quantity: 2 },
      ]);
      const [a, b] = atAmazon().lines.map((l) => l.orderItemId);
      await confirmElsewhere(amazonId, external, '00340434161094042500', [{ orderItemId: a!, quantity: 1 }]);

      const result = await sendMitCompleted(seller, orderId, { deliverer: 'DHL', code: ['00340434161094042557', '00340434161094042558'] });
      expect(result.platform_status, JSON.stringify(result)).to.equal('partially_ok');
      expect(result.shipment[0]).to.deep.include({ code: '00340434161094042557', ok: false });
      expect(result.shipment[0]!.error).to.match(/nothing left to ship/);
      expect(result.shipment[1]).to.deep.equal({ code: '00340434161094042558', ok: true });
      // One confirmation by the other tool, one by send_mit (B's two units); none refused.
      expect(confirmations().map((r) => r.status)).to.deep.equal([204, 204]);
      expect(atAmazon().lines.map((l) => l.quantityShipped)).to.deep.equal([1, 2]);
      expect(atAmazon().packages.at(-1)!.packageItems).to.deep.equal([{ orderItemId: b, quantity: 2 }]);
      expect((await readOrder(seller, orderId)).shipping).to.deep.include({ platform_status: 'partially_ok' });
    });

    it('an Amazon line the seller split in Kontor into two lines of its order item, one unit confirmed elsewhere: the package claims the item once with the two left and is ok (each line capped alone claimed three, which Amazon refuses)', async () => {
      const { seller, amazonId, external, orderId, atAmazon, confirmations } = await amazonOrder([{ sku: 'LEFT-AMZ-S', quantity: 3 }]);
      const item = atAmazon().lines[0]!.orderItemId;
      await confirmElsewhere(amazonId, external, '00340434161094042500', [{ orderItemId: item, quantity: 1 }]);
      // The seller splits the line (two units and one, as from two stock places): both lines are Amazon's one item.
      const [line] = (
        (await call(`order/${orderId}/`, { token: seller.token })).body.order as { line: { transaction_id: string; name: string; price: string }[] }
      ).line;
      expect(line!.transaction_id).to.equal(item);
      const split = { name: line!.name, price: line!.price, transaction_id: item };
      const updated = await call(`order/${orderId}/`, {
        token: seller.token,
        body: {
          order: {
            line: [
              { id: 1, ...split, quantity: '2' },
              { id: 2, ...split, quantity: '1' },
            ],
          },
        },
      });
      expect(updated.status, updated.text).to.equal(200);

      const result = await sendMitCompleted(seller, orderId, { deliverer: 'DHL', code: ['00340434161094042557'] });
      expect(result, JSON.stringify(result)).to.deep.include({ platform_status: 'ok', shipment: [{ code: '00340434161094042557', ok: true }] });
      const sent = confirmations().at(-1)!.body as { packageDetail: { orderItems: { orderItemId: string; quantity: number }[] } };
      expect(sent.packageDetail.orderItems).to.deep.equal([{ orderItemId: item, quantity: 2 }]);
      expect(atAmazon().status).to.equal('SHIPPED');
      expect(atAmazon().lines[0]!.quantityShipped).to.equal(3);
      expect((await readOrder(seller, orderId)).shipping).to.deep.include({ platform_status: 'ok', code: '00340434161094042557' });
    });
  });

  describe('Shopify: a tracking number added to a fulfilment keeps the URLs it has', () => {
    /** A seller's imported Shopify order of one line (two pieces), fulfilled whole at the store by a shipping app with one number of `company` and its tracking URL. */
    async function fulfilledWithUrl(sku: string, company: string, number: string, url: string) {
      const seller = await newSeller();
      const { id: portalAccountId } = await createPortalAccount(seller.id, { name: 'Shopify store', platform: 'webshop' });
      await createStock(seller, sku, 10);
      const placed = (await sandboxPost(sandbox, '/_sandbox/shopify/orders', { portal_account: portalAccountId, lines: [{ sku, quantity: 2 }] })) as {
        id: string;
      };
      await importOrders({ accountId: seller.id, portalAccountId: Number(portalAccountId) }, `left-${sku}`);
      const store = shopifyOf(sandbox.state).orders.get(placed.id)!;
      const res = await fetch(`${sandbox.url}/admin/api/2025-01/graphql.json`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Shopify-Access-Token': sandboxShopifyToken(portalAccountId) },
        body: JSON.stringify({
          query:
            'mutation App($fulfillment: FulfillmentInput!) { fulfillmentCreate(fulfillment: $fulfillment) { fulfillment { id } userErrors { field message } } }',
          variables: {
            fulfillment: { lineItemsByFulfillmentOrder: [{ fulfillmentOrderId: store.fulfillmentOrders[0]!.id }], trackingInfo: { number, company, url } },
          },
        }),
      });
      const body = (await res.json()) as { data: { fulfillmentCreate: { userErrors: unknown[] } } };
      expect(body.data.fulfillmentCreate.userErrors).to.deep.equal([]);
      const externalId = placed.id.split('/').pop()!;
      return { seller, orderId: (await kontorOrder(seller, externalId))!.id, store };
    }
    /** The store's fulfilment's tracking as Fulfillment.trackingInfo shows it: number and URL. */
    const trackingOf = (store: { fulfillments: { tracking: { number: string | null; numbers?: string[]; urls?: string[] } }[] }) =>
      store.fulfillments.map((f) =>
        (f.tracking.numbers ?? (f.tracking.number ? [f.tracking.number] : [])).map((number, i) => ({ number, url: f.tracking.urls?.[i] ?? null })),
      );

    it("a second DHL number by send_mit: the first number keeps the app's tracking URL and the new one gets Kontor's DHL page (the update sent numbers only and the URL was gone)", async () => {
      const appUrl = 'https://track.shipping-app.example/de/00340434161094042500';
      const { seller, orderId, store } = await fulfilledWithUrl('LEFT-SH-1', 'DHL', '00340434161094042500', appUrl);
      const result = await sendMitCompleted(seller, orderId, { deliverer: 'DHL', code: ['00340434161094042557'] });
      expect(result, JSON.stringify(result)).to.deep.include({ platform_status: 'ok', shipment: [{ code: '00340434161094042557', ok: true }] });
      expect(trackingOf(store)).to.deep.equal([
        [
          { number: '00340434161094042500', url: appUrl },
          { number: '00340434161094042557', url: 'https://www.dhl.de/de/privatkunden/pakete-empfangen/verfolgen.html?piececode=00340434161094042557' },
        ],
      ]);
      expect(store.fulfillments[0]!.tracking.company).to.equal('DHL');
      expect((await readOrder(seller, orderId)).shipping).to.deep.include({ platform_status: 'ok' });
    });

    it('a carrier Kontor knows no tracking page of: the number is added after the one with the URL, which keeps it', async () => {
      const appUrl = 'https://track.shipping-app.example/de/RR123456785DE';
      const { seller, orderId, store } = await fulfilledWithUrl('LEFT-SH-2', 'Deutsche Post', 'RR123456785DE', appUrl);
      expect(await sendMitCompleted(seller, orderId, { deliverer: 'Deutsche Post', code: ['RR123456799DE'] })).to.deep.include({ platform_status: 'ok' });
      expect(trackingOf(store)).to.deep.equal([
        [
          { number: 'RR123456785DE', url: appUrl },
          { number: 'RR123456799DE', url: null },
        ],
      ]);
    });
  });

  describe('Kaufland: an order found fulfilled by Kaufland after the request was taken is not sent', () => {
    /** A seller's Kaufland order of one unit, fulfilled by the merchant when imported. */
    async function kauflandOrder(sku: string) {
      const { seller, portalAccountId, list } = await kauflandItem(sku);
      expect((await list()).state).to.equal('completed');
      const sold = (await sandboxPost(sandbox, '/_sandbox/kaufland/orders', { portal_account: portalAccountId, lines: [{ id_offer: sku, quantity: 1 }] })) as {
        id_order: string;
        id_order_units: number[];
      };
      await importOrders({ accountId: seller.id, portalAccountId }, `left-${sku}`);
      const k = kauflandOf(sandbox.state);
      /** Kaufland takes the order over: fulfilled from its own warehouse (its units changed, as Kaufland would stamp them). */
      const takenOver = () => {
        k.orders.get(sold.id_order)!.fulfillment_type = 'fulfilled_by_kaufland';
        for (const id of sold.id_order_units) k.orderUnits.get(id)!.ts_updated_iso = new Date(Date.now() + 1000).toISOString();
      };
      const sends = () =>
        sandbox.state.requests.filter((r) => r.portal === 'market_e' && (r.path.endsWith('/send') || r.path.endsWith('/shipments')) && r.method !== 'GET');
      const units = () => sold.id_order_units.map((id) => k.orderUnits.get(id)!);
      return { seller, portalAccountId, orderId: (await kontorOrder(seller, sold.id_order))!.id, takenOver, sends, units };
    }

    /** The job of a send_mit taken (202) and its end, which must be a failure the client reads; the order stays unshipped with its history saying why. */
    async function refusedJob(seller: Seller, jobId: string, orderId: string) {
      const end = await jobEnd(seller.token, jobId);
      expect(end.state, JSON.stringify(end)).to.equal('failed');
      expect(String(end.error)).to.match(/ships (it|this order)/);
      const order = await readOrder(seller, orderId);
      expect(order.status).to.deep.include({ is_shipped: false });
      expect(order.history.filter((h) => /^send_mit .*: not sent: /.test(h))).to.have.length(1);
      return end;
    }

    it('Kaufland says so only when the shipment goes: the job reads the order, sends no unit and fails naming it (it marked the unit sent, a second parcel to the buyer, and said ok)', async () => {
      const { seller, orderId, takenOver, sends, units } = await kauflandOrder('LEFT-KL-1');
      takenOver();
      const posted = await call(`order/${orderId}/send_mit/`, {
        token: seller.token,
        body: { send_mit: { deliverer: 'DHL', code: ['00340434161094042557'] } },
      });
      expect(posted.status, posted.text).to.equal(202);
      const end = await refusedJob(seller, posted.body.job_id as string, orderId);
      expect(String(end.error)).to.match(/fulfilled_by_kaufland/);
      expect(sends()).to.deep.equal([]);
      expect(units().map((u) => [u.status, u.shipments.length])).to.deep.equal([['need_to_be_sent', 0]]);
    });

    it('the import learns it between the request and the job: the job sends nothing and fails naming it, as the request would have been refused', async () => {
      const { seller, portalAccountId, orderId, takenOver, sends, units } = await kauflandOrder('LEFT-KL-2');
      const mail = queues().get('mail');
      await mail.pause();
      let jobId: string;
      try {
        const posted = await call(`order/${orderId}/send_mit/`, {
          token: seller.token,
          body: { send_mit: { deliverer: 'DHL', code: ['00340434161094042558'] } },
        });
        expect(posted.status, posted.text).to.equal(202);
        jobId = posted.body.job_id as string;
        takenOver();
        await importOrders({ accountId: seller.id, portalAccountId }, 'left-LEFT-KL-2-again');
        // Kontor knows now: a send_mit asked now is refused at once.
        const now = await call(`order/${orderId}/send_mit/`, { token: seller.token, body: {} });
        expect(now.status, now.text).to.equal(400);
        expect(now.body.error![0]).to.deep.include({ error: 'status_conflict', field: 'order_id' });
      } finally {
        await mail.resume();
      }
      await refusedJob(seller, jobId, orderId);
      expect(sends()).to.deep.equal([]);
      expect(units().map((u) => u.status)).to.deep.equal(['need_to_be_sent']);
    });
  });

  describe('Amazon FBA and eBay fulfilment: an order found shipped by the channel after the request was taken is not sent', () => {
    let catcher: MailCatcher;
    let smtpUrl: string;
    before(async () => {
      catcher = await startMailCatcher();
      smtpUrl = config().smtpUrl;
      setConfig({ ...config(), smtpUrl: catcher.url });
    });
    after(async () => {
      setConfig({ ...config(), smtpUrl });
      closeMailer();
      await catcher.close();
    });
    const buyerEmail = (tag: string) => `${tag}-${crypto.randomBytes(3).toString('hex')}@example.com`;

    /**
     * POST send_mit (with the in-transit mail) of an order the channel ships, learnt only by the job:
     * 202, then the job fails for good with the request's status_conflict naming order_id; the
     * order is not shipped, carries no platform_status, its history says why once, and no mail went.
     */
    async function refusedByChannel(seller: Seller, orderId: string, email: string, sendMit: Record<string, unknown>) {
      expect((await readOrder(seller, orderId)).customer).to.deep.include({ email });
      const posted = await call(`order/${orderId}/send_mit/`, { token: seller.token, body: { send_mit: { is_mail: true, ...sendMit } } });
      expect(posted.status, posted.text).to.equal(202);
      const end = await jobEnd(seller.token, posted.body.job_id as string);
      expect(end.state, JSON.stringify(end)).to.equal('failed');
      expect(String(end.error)).to.match(/^order_id: .* ships it itself/);
      const order = await readOrder(seller, orderId);
      expect(order.status).to.deep.include({ is_shipped: false });
      expect(order.shipping.platform_status ?? null).to.equal(null);
      const notSent = order.history.filter((h) => /^send_mit .*: not sent: /.test(h));
      expect(notSent, JSON.stringify(order.history)).to.have.length(1);
      expect(notSent[0]).to.contain(String(end.error));
      expect(order.history.filter((h) => /^send_mit .*: shipped/.test(h))).to.deep.equal([]);
      expect(catcher.mails.filter((m) => m.to === email)).to.deep.equal([]);
      // Kontor knows now, as the request would have been refused: the order stays open to a later import or a hand-set is_shipped.
      return end;
    }

    /** A seller's Amazon order, fulfilled by the merchant when placed and imported (buyer e-mail and all). */
    async function amazonMerchantOrder(sku: string, email: string) {
      const seller = await newSeller();
      await createStock(seller, sku, 10);
      const { amazonId, orderId: external } = await amazonSandboxOrder(sandbox, seller, DE, {
        currency: 'EUR',
        lines: [{ sku, quantity: 1, price: '20.00' }],
        buyer: { email },
      });
      await importOrders({ accountId: seller.id, portalAccountId: amazonId }, `left-${sku}`);
      const atAmazon = () => amazonOf(sandbox.state).orders.get(external)!;
      const confirmations = () =>
        sandbox.state.requests.filter((r) => r.portal === 'market_d' && r.path === `/orders/v0/orders/${external}/shipmentConfirmation`);
      return { seller, orderId: (await kontorOrder(seller, external))!.id, atAmazon, confirmations };
    }

    it('Amazon: the order is fulfilled by Amazon (FBA) when the job reads it: no confirmation, the job fails naming it (it was shipped with platform_status error and the buyer mailed)', async () => {
      const email = buyerEmail('fba');
      const { seller, orderId, atAmazon, confirmations } = await amazonMerchantOrder('LEFT-FBA-1', email);
      // Amazon's fulfilment network takes the order over (fulfilledBy AMAZON, FulfillmentChannel AFN) before Kontor's import reads it again.
      atAmazon().fulfilledBy = 'AMAZON';
      const end = await refusedByChannel(seller, orderId, email, { deliverer: 'DHL', code: ['00340434161094042557'] });
      expect(String(end.error)).to.match(/FBA, fulfilledBy AMAZON/);
      // The sandbox refuses a confirmation of an AFN order (InvalidInput); none was even asked.
      expect(confirmations()).to.deep.equal([]);
      expect(atAmazon().packages).to.deep.equal([]);
      expect(atAmazon().lines.map((l) => l.quantityShipped)).to.deep.equal([0]);
    });

    it('Amazon: the same without a tracking code: fails naming Amazon fulfilment, not "Amazon needs a tracking number" as an error part of an order marked shipped', async () => {
      const email = buyerEmail('fba-nocode');
      const { seller, orderId, atAmazon, confirmations } = await amazonMerchantOrder('LEFT-FBA-2', email);
      atAmazon().fulfilledBy = 'AMAZON';
      const end = await refusedByChannel(seller, orderId, email, { deliverer: 'DHL' });
      expect(String(end.error)).to.match(/FBA, fulfilledBy AMAZON/);
      expect(confirmations()).to.deep.equal([]);
    });

    it('eBay: an order eBay fulfils, imported unpaid (no program shown) and paid since: no shipping fulfillment, the job fails naming it (it was shipped with platform_status error and the buyer mailed)', async () => {
      const email = buyerEmail('fbe');
      const seller = await newSeller();
      const { id: channelId } = await createPortalAccount(seller.id, { name: 'eBay', platform: 'auction_a' });
      await createStock(seller, 'LEFT-FBE-1', 10);
      const { order_id: external } = (await sandboxPost(sandbox, '/_sandbox/ebay/orders', {
        portal_account: channelId,
        lines: [{ sku: 'LEFT-FBE-1', quantity: 2, price: '10.00' }],
        payment_status: 'PENDING',
        fulfilled_by: 'EBAY',
        buyer: { username: 'fbe-buyer', email },
      })) as { order_id: string };
      await importOrders({ accountId: seller.id, portalAccountId: Number(channelId) }, 'left-fbe-1');
      const orderId = (await kontorOrder(seller, external))!.id;
      // The buyer pays: eBay now shows that it ships the order (Program.fulfillmentProgram, "only returned for paid orders"); Kontor has not imported it since.
      await sandboxPost(sandbox, `/_sandbox/ebay/orders/${external}/pay`, {});
      const atEbay = sandbox.state.ebay.orders.get(external)!;
      expect(atEbay.order.program).to.deep.equal({ fulfillmentProgram: { fulfilledBy: 'EBAY' } });

      const end = await refusedByChannel(seller, orderId, email, { deliverer: 'DHL', code: ['00340434161094042557'] });
      expect(String(end.error)).to.match(/eBay fulfilment program, fulfilledBy EBAY/);
      // The contract names no refusal of a fulfillment for such an order (the sandbox would take it): none was posted.
      const posts = sandbox.state.requests.filter(
        (r) => r.portal === 'auction_a' && r.method === 'POST' && r.path === `/sell/fulfillment/v1/order/${external}/shipping_fulfillment`,
      );
      expect(posts).to.deep.equal([]);
      expect(atEbay.fulfillments).to.deep.equal([]);
      expect(atEbay.order.orderFulfillmentStatus).to.equal('NOT_STARTED');
      // No feedback was left either (send_mit rates the eBay buyer only after a shipment it reported).
      expect(
        sandbox.state.requests.filter((r) => r.portal === 'auction_a' && r.portalAccount === String(channelId) && r.path === '/commerce/feedback/v1/feedback'),
      ).to.deep.equal([]);
    });
  });
});
