import path from 'node:path';
import express, { Request, Response } from 'express';
import { config } from '../../config';
import type { Endpoint } from '../../lib/http';
import { openApiDocument } from '../../lib/http';
import { currentVersion } from './context';
import { docsPageHeaders } from './page-headers';

/** swagger-ui-dist's files, served from node_modules: the page works without the internet. */
const swaggerUi = path.dirname(require.resolve('swagger-ui-dist/package.json'));

// The page and its start script live here (not as files) so the compiled build carries them.
const page = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Kontor API</title>
  <link rel="stylesheet" href="swagger-ui.css">
  <link rel="stylesheet" href="kontor-docs.css">
  <link rel="icon" type="image/png" href="favicon-32x32.png">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="swagger-ui-bundle.js"></script>
  <script src="swagger-ui-standalone-preset.js"></script>
  <script src="kontor-docs.js"></script>
</body>
</html>
`;

// An external script, not an inline one, so the CSP needs no 'unsafe-inline' for scripts.
const start = `window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: new URL('../openapi.json', window.location.href).href,
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    layout: 'StandaloneLayout',
  });
};
`;

// Swagger UI gives a query parameter's JSON box the height of a request body's: select, filter and
// pagination filled 700 pixels of an operation with three lines of text. Resizable as before.
const style = `.swagger-ui .parameters-col_description textarea { min-height: 6.5em; height: 6.5em; }
`;

/**
 * {base_url}openapi.json (no token: the document is public) and the interactive page at
 * {base_url}docs/. The document is built once per version and address.
 */
export function docsRouter(endpoints: Endpoint[]): express.Router {
  const router = express.Router({ strict: true });
  const built = new Map<string, Record<string, unknown>>();
  router.get('/openapi.json', (req: Request, res: Response) => {
    const version = req.context.version ?? currentVersion;
    const baseUrl = `${config().publicUrl}/${version}/`;
    let doc = built.get(baseUrl);
    if (!doc) built.set(baseUrl, (doc = openApiDocument(endpoints, baseUrl, version)));
    res.json(doc);
  });
  router.get('/docs', (req: Request, res: Response) => res.redirect(301, `${req.baseUrl}/docs/`));
  router.get('/docs/', docsPageHeaders, (_req: Request, res: Response) => res.type('html').send(page));
  router.get('/docs/kontor-docs.js', (_req: Request, res: Response) => res.type('js').send(start));
  router.get('/docs/kontor-docs.css', (_req: Request, res: Response) => res.type('css').send(style));
  router.use('/docs', docsPageHeaders, express.static(swaggerUi, { index: false }));
  return router;
}
