import express, { NextFunction, Request, Response } from 'express';
import { config } from '../config';
import { domainError, tooLarge } from '../lib/errors';
import { requestContext, standardHeaders, versions } from './framework/context';
import { docsRouter } from './framework/docs';
import { mountEndpoints } from './framework/mount';
import { authorizePageHeaders, noCors, pageHeaders } from './framework/page-headers';
import { parseQuery } from './framework/query-parser';
import { sendError, toDomainError } from './framework/respond';
import type { Endpoint } from '../lib/http';
import { endpoints } from './routes';
import { authorizePage } from './routes/authorize';
import { invoiceFileRouter } from './routes/invoice-file';
import { connectPages } from './routes/connect.pages';
import { httpMetrics, healthRouter, operatorRouter } from '../lib/operator';
// Provides lib/order's grant queries to the lower domains that read through them (lib/access/order-grant.ts).
import '../lib/order';

/** The Express app: conventions of document 1 around the declared endpoints (tests may add some). */
export function createApp(extra: Endpoint[] = []): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', parseQuery);
  // X-Forwarded-For is believed only from TRUSTED_PROXIES (default none: the TCP peer is the client).
  app.set('trust proxy', config().trustedProxies.length ? config().trustedProxies : false);
  app.use(requestContext, standardHeaders);
  // Operator pages (health, queue dashboard, metrics) sit outside the API and its envelope; an
  // API call passes them by their prefix without walking their routes.
  app.use(httpMetrics);
  app.use('/health', healthRouter());
  app.use('/operator', pageHeaders, operatorRouter());
  // Invoice download links of the local archive (lib/invoice): files, not envelopes.
  app.use('/invoice-file', noCors, invoiceFileRouter());
  // The channels' consent callbacks and eBay's account deletion endpoint (issue 30): pages without the API's envelope.
  app.use('/connect', pageHeaders, connectPages());
  // Bodies are read raw and decoded by the framework (media types and charsets real clients send,
  // application/json encoding=utf-8, ISO-8859-15, are beyond express.json()), and only once the
  // endpoint has authenticated its caller: server/framework/body.ts, mount.ts.

  const api = express.Router({ strict: false, caseSensitive: true });
  mountEndpoints(api, [...endpoints, ...extra]);
  api.use(docsRouter([...endpoints, ...extra]));
  api.use('/authorize.php', noCors, authorizePageHeaders, authorizePage());
  // One layer for every version prefix: a call is matched against them once, not layer by layer.
  app.use(
    versions.map((version) => `/${version}`),
    api,
  );
  app.use('/', api);

  app.use((req: Request, res: Response) => sendError(req, res, domainError('unknown_path', `${req.path} is not an endpoint of this service`)));
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const status = (err as { status?: number; type?: string }).status;
    if ((err as { type?: string }).type === 'entity.too.large')
      return sendError(req, res, tooLarge(`the request body exceeds ${config().bodyLimitBytes} bytes`));
    if (status && status >= 400 && status < 500) return sendError(req, res, domainError('bad_request', 'the request could not be read'));
    return sendError(req, res, toDomainError(err, req.context.log));
  });
  return app;
}
