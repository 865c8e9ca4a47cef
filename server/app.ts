import express, { NextFunction, Request, Response } from 'express';
import { config, trustProxySetting } from '../config';
import { DomainError, domainError, tooLarge } from '../lib/errors';
import { currentVersion, requestContext, versions } from './framework/context';
import { docsRouter } from './framework/docs';
import { endpointHandler } from './framework/mount';
import { authorizePageHeaders, noCors, pageHeaders } from './framework/page-headers';
import { parseQuery } from './framework/query-parser';
import { sendError, toDomainError } from './framework/respond';
import type { Endpoint } from '../lib/http';
import { endpoints } from './routes';
import { authorizePage } from './routes/authorize';
import { invoiceFileRouter } from './routes/invoice-file';
import { connectPages } from './routes/connect.pages';
import { healthRouter, operatorRouter } from '../lib/operator';
import { provideOrderGrant } from '../lib/order';
import { provideChannelFulfilment } from '../lib/order-import';
import { provideOrderPaymentRecords } from '../lib/bank';
import { provideClientAccessHandlers, provideStockEventTargets } from '../lib/event';
import { provideEbayListings } from '../lib/portal-offer';

// lib/order's grant queries, which lib/customer and lib/stock read through lib/access/order-grant.ts.
provideOrderGrant();
// lib/order-import's record of orders a channel ships itself, which send_mit refuses (lib/order/channel-fulfilment.ts).
provideChannelFulfilment();
// lib/bank's records of the payments an order got, which an order's delete gives back to the unassigned ones (lib/order/order-payment-records.ts).
provideOrderPaymentRecords();
// lib/event's handler look-up, with which lib/stock checks cia.event target[] (lib/stock/event-targets.ts).
provideStockEventTargets();
// lib/event's deletion of a client's handlers with its client access (lib/auth/client-access-going.ts): revoke, a replayed code or refresh token.
provideClientAccessHandlers();
// lib/portal-offer's record of an item's eBay listings, by which a save warns of no SKU eBay holds a listing under (lib/stock/stock-ebay-sku.ts).
provideEbayListings();

/** The Express app: conventions of document 1 around the declared endpoints (tests may add some). */
export function createApp(extra: Endpoint[] = []): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', parseQuery);
  // X-Forwarded-For is believed only from TRUSTED_PROXIES (default none: the TCP peer is the client).
  app.set('trust proxy', trustProxySetting(config().trustedProxies));
  app.use(requestContext);
  // Bodies are read raw and decoded by the framework (media types and charsets real clients send,
  // application/json encoding=utf-8, ISO-8859-15, are beyond express.json()), and only once the
  // endpoint has authenticated its caller: server/framework/body.ts, mount.ts.

  // The endpoints, with or without a version prefix, in one layer (server/framework/mount.ts).
  // First: no operator page below shares a first segment with an endpoint.
  app.use(endpointHandler([...endpoints, ...extra]));
  // The API's pages beside its endpoints, under each version prefix and none.
  const api = express.Router({ strict: false, caseSensitive: true });
  api.use(docsRouter([...endpoints, ...extra]));
  api.use('/authorize.php', noCors, authorizePageHeaders, authorizePage());
  app.use(
    versions.map((version) => `/${version}`),
    api,
  );
  // Operator pages (health, queue dashboard, metrics) sit outside the API and its envelope. After
  // the versioned API: a call of the API meets no layer of theirs on its way (each layer Express
  // tries costs every request a match); their paths start with no version.
  app.use('/health', healthRouter());
  // No CORS: the API's permissive headers (context.ts) are no invitation to the operator's pages.
  app.use('/operator', noCors, pageHeaders, operatorRouter());
  // Invoice download links of the local archive (lib/invoice): files, not envelopes.
  app.use('/invoice-file', noCors, invoiceFileRouter());
  // The channels' consent callbacks and eBay's account deletion endpoint (issue 30): pages without the API's envelope.
  app.use('/connect', pageHeaders, connectPages());
  app.use('/', api);

  // The base URL npm start prints, opened in a browser, lands here: the answer says where the endpoints are listed.
  const listed = `every endpoint is listed at /${currentVersion}/openapi.json and shown at /${currentVersion}/docs/`;
  app.use((req: Request, res: Response) => sendError(req, res, domainError('unknown_path', `${req.path} is not an endpoint of this service; ${listed}`)));
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    // A refusal the framework made before an endpoint ran (a path parameter that does not decode) says what it refused.
    if (err instanceof DomainError) return sendError(req, res, err);
    const status = (err as { status?: number; type?: string }).status;
    if ((err as { type?: string }).type === 'entity.too.large')
      return sendError(req, res, tooLarge(`the request body exceeds ${config().bodyLimitBytes} bytes`));
    if (status && status >= 400 && status < 500) return sendError(req, res, domainError('bad_request', 'the request could not be read'));
    return sendError(req, res, toDomainError(err, req.context.log));
  });
  return app;
}
