/**
 * The sandbox's eBay (auction_a): the part of eBay's REST APIs the adapter uses, played from
 * eBay's published contracts. Every request under /sell and /commerce is checked against
 * Inventory 1.18.0, Fulfillment v1.20.7 and Feedback v1.0.0 (ebay-contract.sandbox.ts; a
 * violation is answered with eBay's 400 error body and recorded for GET /_sandbox/violations)
 * before it reaches the routes (ebay-inventory.sandbox.ts, ebay-orders.sandbox.ts), which model
 * the documented behaviour listed there. It keeps feeding the shared state (offers, quantities,
 * acks, requests) and takes the shared faults and delays of portal "auction_a".
 *
 * OAuth (consent, code and refresh grants): ebay-oauth.sandbox.ts.
 *
 * Which portal account a call is for: the access tokens it issues name the account bound to
 * the refresh token (POST /_sandbox/ebay/consent {portal_account} hands out client_id,
 * client_secret and refresh_token, as eBay's consent would); a portal account without
 * credentials calls with `Bearer sandbox-account-<portal account id>`. POST /_sandbox/ebay/revoke
 * {refresh_token | portal_account} revokes a consent: its refresh token then gets invalid_grant.
 *
 * Rate limits: eBay's REST responses carry no rate-limit headers (the limits are read through
 * the Developer Analytics API getRateLimits); an exhausted limit is a 429 with errorId 2001,
 * which the shared faults play (POST /_sandbox/faults {portal: auction_a, status: 429}).
 */
import crypto from 'node:crypto';
import express, { NextFunction, Request, Response } from 'express';
import { ebayContractGate } from './ebay-contract.sandbox';
import { listingsOf, mountInventory } from './ebay-inventory.sandbox';
import { legacyVariations } from './ebay-migrate.sandbox';
import { mountNotification } from './ebay-notification.sandbox';
import { mountOAuth } from './ebay-oauth.sandbox';
import { mountOrders, payOrder, placeOrder, refundOrder, Sale, sellOnEbay } from './ebay-orders.sandbox';
import { mountFeedback } from './ebay-feedback.sandbox';
import { requestOrderCancel } from './ebay-cancel.sandbox';
import { mountRevisionControls } from './ebay-revisions.sandbox';
import { mountStaleReadControls } from './ebay-stale-reads.sandbox';
import { accountOf, Body, error, portal } from './ebay-state.sandbox';
import type { SandboxState } from './sandbox.app';

export { EbayState } from './ebay-state.sandbox';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Before every eBay API route: the bearer token (401 otherwise) and the record of the request (with its answer) in the shared list. */
function authenticate(state: SandboxState) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const account = accountOf(state.ebay, req);
    const record = (status: number) => {
      state.requests.push({
        at: new Date().toISOString(),
        portal,
        portalAccount: account ?? 'unknown',
        method: req.method,
        path: req.originalUrl.split('?')[0]!,
        idempotencyKey: null,
        body: req.method === 'GET' ? req.query : req.body,
        status,
        replayed: false,
        bearer: account !== undefined,
      });
      if (state.requests.length > state.maxRequests) state.requests.splice(0, state.requests.length - state.maxRequests);
    };
    if (!account) {
      record(401);
      res.status(401).json(error(1001, 'Invalid access token', 'OAuth', 'REQUEST'));
      return;
    }
    res.locals.account = account;
    const json = res.json.bind(res);
    res.json = (body: unknown) => {
      record(res.statusCode);
      return json(body);
    };
    const end = res.end.bind(res) as (...args: unknown[]) => Response;
    res.end = ((...args: unknown[]) => {
      if (res.statusCode === 204) record(204);
      return end(...args);
    }) as Response['end'];
    next();
  };
}

/** After the contract check: the delay of auction_a and a pending fault of auction_a (eBay's error body, Retry-After when given). */
function faults(state: SandboxState) {
  return async (_req: Request, res: Response, next: NextFunction): Promise<void> => {
    state.inFlight += 1;
    res.once('close', () => {
      state.inFlight -= 1;
    });
    const delay = state.delays.get(portal) ?? state.delays.get('*') ?? 0;
    if (delay > 0) await sleep(delay);
    const fault = state.takeFault(portal, res.locals.account as string);
    if (fault) {
      // A test's scripted answer: any status it asks for, not held to the contract's answers.
      res.locals.scripted = true;
      if (fault.retryAfter !== undefined) res.set('Retry-After', fault.retryAfter);
      const errorId = fault.status === 429 ? 2001 : fault.status >= 500 ? 2003 : 25001;
      res
        .status(fault.status)
        .json(error(errorId, fault.message, fault.status === 429 ? 'ACCESS' : 'API_INVENTORY', fault.status >= 500 ? 'APPLICATION' : 'REQUEST'));
      return;
    }
    next();
  };
}

function mountControls(app: express.Express, state: SandboxState): void {
  const ebay = state.ebay;
  app.post('/_sandbox/ebay/consent', (req: Request, res: Response) => {
    const account = String((req.body as Body | undefined)?.portal_account ?? '');
    if (!account) {
      res.status(400).json({ message: 'portal_account is required' });
      return;
    }
    const grant = {
      client_id: `Kontor-${account}-SBX`,
      client_secret: `SBX-${crypto.randomBytes(8).toString('hex')}`,
      refresh_token: `v^1.1#r^1#${crypto.randomBytes(16).toString('hex')}`,
    };
    ebay.consents.set(grant.refresh_token, { account, clientId: grant.client_id, clientSecret: grant.client_secret, revoked: false });
    res.status(201).json(grant);
  });
  app.post('/_sandbox/ebay/revoke', (req: Request, res: Response) => {
    const body = (req.body ?? {}) as Body;
    let revoked = 0;
    for (const [refresh, consent] of ebay.consents) {
      if (refresh !== body.refresh_token && consent.account !== String(body.portal_account ?? '')) continue;
      consent.revoked = true;
      revoked += 1;
      for (const [token, account] of ebay.tokens) if (account === consent.account) ebay.tokens.delete(token);
    }
    res.json({ revoked });
  });
  // A seller without any inventory location (the default one is not made for this account).
  // The seller holds inventory items of every SKU a quantity names (made outside Kontor): for runs that push CIA to eBay without listing there (ebay-state.sandbox.ts itemsMadeElsewhere).
  app.post('/_sandbox/ebay/config', (req: Request, res: Response) => {
    const body = (req.body ?? {}) as Body;
    if (typeof body.items_made_elsewhere !== 'boolean') {
      res.status(400).json({ message: 'items_made_elsewhere (true or false) is required' });
      return;
    }
    ebay.itemsMadeElsewhere = body.items_made_elsewhere;
    res.json({ items_made_elsewhere: ebay.itemsMadeElsewhere });
  });
  app.post('/_sandbox/ebay/locations', (req: Request, res: Response) => {
    const account = String((req.body as Body | undefined)?.portal_account ?? '');
    if (!account) {
      res.status(400).json({ message: 'portal_account is required' });
      return;
    }
    ebay.withoutLocations.add(account);
    ebay.locations.delete(account);
    res.json({ locations: [...ebay.locationsOf(account).keys()] });
  });
  app.post('/_sandbox/ebay/orders', (req: Request, res: Response) => {
    const body = (req.body ?? {}) as Body;
    // Two of PaymentMethodTypeEnum's values (the file names the type, not its values): EBAY, the
    // default, and ESCROW, the one method the contract gives a paymentReferenceId.
    if (body.payment_method !== undefined && body.payment_method !== 'EBAY' && body.payment_method !== 'ESCROW') {
      res.status(400).json({ message: 'payment_method is EBAY or ESCROW' });
      return;
    }
    try {
      const sale: Sale = {
        account: String(body.portal_account ?? ''),
        lines: (Array.isArray(body.lines) ? body.lines : []) as Sale['lines'],
        ...(typeof body.currency === 'string' ? { currency: body.currency } : {}),
        ...(typeof body.payment_status === 'string' ? { paymentStatus: body.payment_status as Sale['paymentStatus'] } : {}),
        ...(typeof body.refund === 'string' ? { refund: body.refund } : {}),
        ...(body.adjustment !== undefined ? { adjustment: body.adjustment as string } : {}),
        ...(body.delivery_discount !== undefined ? { delivery_discount: body.delivery_discount as string } : {}),
        ...(body.buyer ? { buyer: body.buyer as Sale['buyer'] } : {}),
        ...(body.fulfilled_by === 'EBAY' ? { fulfilledByEbay: true } : {}),
        ...(body.payments_listed === false ? { paymentsListed: false } : {}),
        ...(body.payment_method === 'ESCROW' ? { paymentMethod: 'ESCROW' as const } : {}),
      };
      res.status(201).json(placeOrder(state, sale));
    } catch (err) {
      res.status(400).json({ message: (err as Error).message });
    }
  });
  // The seller refunds (a line, or the order): what getOrders shows afterwards (ebay-orders.sandbox.ts refundOrder).
  app.post('/_sandbox/ebay/orders/:orderId/refund', (req: Request, res: Response) => {
    const found = state.ebay.orders.get(String(req.params.orderId));
    if (!found) {
      res.status(404).json({ message: 'no such order' });
      return;
    }
    const body = (req.body ?? {}) as Body;
    const refused = refundOrder(found.order, {
      ...(typeof body.line_item_id === 'string' ? { lineItemId: body.line_item_id } : {}),
      ...(Number.isInteger(body.line_index) ? { lineIndex: Number(body.line_index) } : {}),
      ...(typeof body.amount === 'string' ? { amount: body.amount } : {}),
    });
    if (refused) res.status(400).json({ message: refused });
    else res.json(found.order);
  });
  // The buyer pays an unpaid order (ebay-orders.sandbox.ts payOrder): what getOrders shows afterwards.
  app.post('/_sandbox/ebay/orders/:orderId/pay', (req: Request, res: Response) => {
    const orderId = String(req.params.orderId);
    const refused = payOrder(state, orderId);
    if (refused) res.status(state.ebay.orders.has(orderId) ? 409 : 404).json({ message: refused });
    else res.json(state.ebay.orders.get(orderId)!.order);
  });
  // The buyer asks to cancel an order (eBay's cancellation request): POST /_sandbox/ebay/orders/:orderId/cancel_request {reason?}.
  app.post('/_sandbox/ebay/orders/:orderId/cancel_request', (req: Request, res: Response) => {
    const found = state.ebay.orders.get(String(req.params.orderId));
    if (!found) {
      res.status(404).json({ message: 'no such order' });
      return;
    }
    const reason = (req.body as Body | undefined)?.reason;
    const refused = requestOrderCancel(found.order, `CR${ebay.next()}`, typeof reason === 'string' ? reason : 'order placed by mistake');
    if (refused) res.status(409).json({ message: refused });
    else res.json(found.order);
  });
  // A listing made in Seller Hub or through the Trading API (not an Inventory API offer): bulkMigrateListing takes it over.
  // With `variations` [{sku?, quantity, price?, aspects: {name: value}}] a multiple-variation listing (`sku` is then the listing's own).
  app.post('/_sandbox/ebay/legacy_listings', (req: Request, res: Response) => {
    const body = (req.body ?? {}) as Body;
    const account = String(body.portal_account ?? '');
    if (!account) {
      res.status(400).json({ message: 'portal_account is required' });
      return;
    }
    const variations = legacyVariations(body);
    if (typeof variations === 'string') {
      res.status(400).json({ message: variations });
      return;
    }
    const listingId = String(110000000000 + ebay.next());
    const title = String(body.title ?? 'Listed in Seller Hub');
    ebay.legacy.set(listingId, {
      listingId,
      account,
      ...(typeof body.sku === 'string' ? { sku: body.sku } : {}),
      format: body.format === 'AUCTION' ? 'AUCTION' : 'FIXED_PRICE',
      quantity: Number(body.quantity ?? 1),
      price: String(body.price ?? '10.00'),
      currency: String(body.currency ?? 'EUR'),
      title,
      businessPolicies: body.business_policies !== false,
      description: String(body.description ?? title),
      ...(Array.isArray(body.pictures) ? { pictures: body.pictures.map(String) } : {}),
      ...(body.aspects && typeof body.aspects === 'object' ? { aspects: body.aspects as Record<string, string[]> } : {}),
      ...(variations ? { variations } : {}),
    });
    res.status(201).json({ listing_id: listingId });
  });
  // What the seller's shipment confirmations left at eBay (getShippingFulfillments without a token).
  app.get('/_sandbox/ebay/orders/:orderId/shipping_fulfillment', (req: Request, res: Response) => {
    const found = ebay.orders.get(String(req.params.orderId));
    if (!found) {
      res.status(404).json({ message: `no order ${String(req.params.orderId)}` });
      return;
    }
    res.json({ orderFulfillmentStatus: found.order.orderFulfillmentStatus, fulfillments: found.fulfillments });
  });
  app.get('/_sandbox/ebay/listings', (req: Request, res: Response) => {
    res.json(listingsOf(state, typeof req.query.portal_account === 'string' ? req.query.portal_account : undefined));
  });
}

/** Mounts the token endpoint, the controls and eBay's API routes behind the bearer check, the contract check and the faults. */
export function mountEbay(app: express.Express, state: SandboxState): void {
  const contract = ebayContractGate(app, state);
  mountOAuth(app, state.ebay);
  mountNotification(app);
  mountControls(app, state);
  mountRevisionControls(app, state);
  mountStaleReadControls(app, state);
  state.sellers.set('auction_a', (sale) => sellOnEbay(state, sale));
  const router = express.Router();
  mountInventory(router, state);
  mountOrders(router, state);
  mountFeedback(router, state);
  app.use(['/sell', '/commerce'], authenticate(state), contract, faults(state));
  app.use(router);
}
