/**
 * helmet's headers for the HTML pages (authorize.php, the docs page, the operator pages); the
 * API's JSON/XML answers keep document 1's headers (context.ts).
 */
import helmet from 'helmet';

/** Operator pages (bull-board loads its scripts from here; inline styles and data: images are helmet's defaults). */
export const pageHeaders = helmet();

/**
 * The consent page may not be framed (clickjacking a consent, RFC 9700 4.16). form-action is
 * left out: the form's answer redirects to the client's redirect_uri, which browsers check
 * against form-action.
 */
export const authorizePageHeaders = helmet({
  contentSecurityPolicy: { directives: { 'frame-ancestors': ["'none'"], 'form-action': null } },
  frameguard: { action: 'deny' },
});

/** Swagger UI: its scripts are files here; it sets inline styles and uses data: images. */
export const docsPageHeaders = helmet({
  contentSecurityPolicy: {
    directives: { 'script-src': ["'self'"], 'style-src': ["'self'", "'unsafe-inline'"], 'img-src': ["'self'", 'data:'], 'connect-src': ["'self'"] },
  },
});
