/**
 * Pages outside the versioned API that the channels send a seller's browser or their own
 * notifications to (issue 30 point 3): no bearer token, no envelope.
 * - GET /connect/ebay/accepted, /connect/ebay/declined: eBay's accept and decline URLs (code or
 *   error, with state); GET /connect/amazon/authorized: Amazon's redirect (spapi_oauth_code,
 *   state, selling_partner_id). Answered with a small page: connected, or what failed (400 for a
 *   bad, expired or replayed link, which changes nothing).
 * - GET /connect/ebay/account-deletion?challenge_code=: {challengeResponse}; POST there: eBay's
 *   signed account deletion notification, 204 once acted on, 412 for a bad signature.
 * - GET /connect/shopify/callback: a store's install of Kontor's app (code, hmac, shop, state,
 *   timestamp); a bad hmac is a 403 page. POST /connect/shopify/webhooks: Shopify's webhooks,
 *   200 {outcome} once verified and queued, 401 for a bad signature.
 */
import express, { Request, Response } from 'express';
import { connectPaths } from '../../config/channel-apps';
import { completeAmazonConsent, completeEbayConsent, completeShopifyInstall, ConsentFailed, ConsentOutcome } from '../../lib/admin';
import { DomainError } from '../../lib/errors';
import { receiveEbayDeletion, ebayChallenge, receiveShopifyWebhook, ShopifyWebhookRefused } from '../../lib/portal-connect';
import { EbayNotificationRefused } from '../../lib/portals';
import { sendError, toDomainError } from '../framework/respond';

const escape = (value: unknown) => String(value ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const channelName = { ebay: 'eBay', amazon_sp: 'Amazon', shopify: 'Shopify' } as const;

function page(title: string, lines: string[]): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer"><title>${escape(title)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;color:#222}h1{font-size:1.4rem}</style></head>
<body><h1>${escape(title)}</h1>${lines.map((l) => `<p>${escape(l)}</p>`).join('')}</body></html>`;
}

const html = (res: Response, status: number, body: string) => res.status(status).set('Cache-Control', 'no-store').type('html').send(body);

function connected(res: Response, outcome: ConsentOutcome): void {
  const channel = channelName[outcome.connector];
  html(
    res,
    200,
    page(`${channel} connected`, [
      `Kontor now reaches your ${channel} account through the portal account "${outcome.name}" (${outcome.portal_account_id}) of the Kontor account ${outcome.login}.`,
      `If that is not your Kontor account, revoke Kontor's access in your ${channel} account settings.`,
      ...outcome.notes,
      'You can close this page.',
    ]),
  );
}

function failed(req: Request, res: Response, err: unknown): void {
  if (err instanceof ConsentFailed) return void html(res, err.status, page('Not connected', [err.message]));
  // Not configured (503), PostgreSQL or Redis away (503): the message, never a stack.
  const error = toDomainError(err, req.context.log);
  html(
    res,
    error.status,
    page('Not connected', [error.status >= 500 && error.kind === 'internal' ? 'Something went wrong on our side. Please try again.' : error.message]),
  );
}

function consentRoute(complete: (query: Record<string, unknown>) => Promise<ConsentOutcome>) {
  return async (req: Request, res: Response) => {
    try {
      connected(res, await complete(req.query as Record<string, unknown>));
    } catch (err) {
      failed(req, res, err);
    }
  };
}

/** The path under the mount point /connect (server/app.ts), which API calls pass by its prefix. */
const under = (path: string) => path.replace(/^\/connect/, '');

/** Mounted at /connect (server/app.ts), before the API. */
export function connectPages(): express.Router {
  const router = express.Router();
  router.get(under(connectPaths.ebayAccepted), consentRoute(completeEbayConsent));
  router.get(under(connectPaths.ebayDeclined), consentRoute(completeEbayConsent));
  router.get(under(connectPaths.amazonAuthorized), consentRoute(completeAmazonConsent));
  router.get(under(connectPaths.shopifyCallback), consentRoute(completeShopifyInstall));
  router.post(
    under(connectPaths.shopifyWebhooks),
    // The signature covers the bytes Shopify sent: the body is read raw, never re-serialised.
    express.raw({ type: () => true, limit: '1mb' }),
    async (req: Request, res: Response) => {
      try {
        const answer = await receiveShopifyWebhook({
          raw: Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0),
          hmac: req.get('x-shopify-hmac-sha256'),
          topic: req.get('x-shopify-topic'),
          shop: req.get('x-shopify-shop-domain'),
          webhookId: req.get('x-shopify-webhook-id'),
        });
        res.status(200).set('Cache-Control', 'no-store').json(answer);
      } catch (err) {
        if (err instanceof ShopifyWebhookRefused) {
          req.context.log.warn({ reason: err.message, shop: req.get('x-shopify-shop-domain') }, 'shopify webhook refused');
          res.status(err.status).json({ error: err.message });
          return;
        }
        sendError(req, res, err instanceof DomainError ? err : toDomainError(err, req.context.log));
      }
    },
  );

  router.get(under(connectPaths.ebayAccountDeletion), (req: Request, res: Response) => {
    try {
      res.status(200).set('Cache-Control', 'no-store').json(ebayChallenge(req.query.challenge_code));
    } catch (err) {
      sendError(req, res, toDomainError(err, req.context.log));
    }
  });
  router.post(
    under(connectPaths.ebayAccountDeletion),
    // The signature covers the bytes eBay sent: the body is read raw, never re-serialised.
    express.raw({ type: () => true, limit: '64kb' }),
    async (req: Request, res: Response) => {
      try {
        const raw = Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '';
        await receiveEbayDeletion(raw, req.get('x-ebay-signature'));
        res.status(204).end();
      } catch (err) {
        if (err instanceof EbayNotificationRefused) {
          req.context.log.warn({ reason: err.message }, 'ebay account deletion refused');
          res.status(err.status).json({ error: err.message });
          return;
        }
        const error = err instanceof DomainError ? err : toDomainError(err, req.context.log);
        sendError(req, res, error);
      }
    },
  );
  return router;
}
