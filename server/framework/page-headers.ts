/**
 * helmet's headers for the HTML pages (authorize.php, the docs page, the operator pages); the
 * API's JSON/XML answers keep document 1's headers (context.ts).
 */
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
