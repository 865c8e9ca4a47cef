/**
 * helmet's headers for the HTML pages (authorize.php, the docs page, the operator pages); the
 * API's JSON/XML answers keep document 1's headers (context.ts).
 */
import type { NextFunction, Request, Response } from 'express';
import helmet from 'helmet';

/**
 * No upgrade-insecure-requests: behind plain HTTP (development, a LAN) the browser would fetch
 * the page's own scripts over HTTPS and fail; TLS is the proxy's job, HSTS stays.
 */
const plainHttp = { 'upgrade-insecure-requests': null };

/** Operator pages (bull-board loads its scripts from here; inline styles and data: images are helmet's defaults). */
export const pageHeaders = helmet({ contentSecurityPolicy: { directives: plainHttp } });

/**
 * The consent page may not be framed (clickjacking a consent, RFC 9700 4.16). form-action is
 * left out: the form's answer redirects to the client's redirect_uri, which browsers check
 * against form-action.
 */
export const authorizePageHeaders = helmet({
  contentSecurityPolicy: { directives: { ...plainHttp, 'frame-ancestors': ["'none'"], 'form-action': null } },
  frameguard: { action: 'deny' },
});

/** Swagger UI: its scripts are files here; it sets inline styles and uses data: images. */
export const docsPageHeaders = helmet({
  contentSecurityPolicy: {
    directives: {
      ...plainHttp,
      'script-src': ["'self'"],
      'style-src': ["'self'", "'unsafe-inline'"],
      'img-src': ["'self'", 'data:'],
      'connect-src': ["'self'"],
    },
  },
});

/**
 * No CORS on the consent page: another origin must not read it (its CSRF value) nor drive its
 * form by script. The API's permissive headers (context.ts) are taken off again.
 */
export function noCors(_req: Request, res: Response, next: NextFunction): void {
  for (const name of ['Access-Control-Allow-Origin', 'Access-Control-Allow-Methods', 'Access-Control-Allow-Headers', 'Access-Control-Expose-Headers'])
    res.removeHeader(name);
  next();
}
