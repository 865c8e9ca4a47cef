import express, { Request, Response } from 'express';
import { AuthorizeError, authorizeClient, findClient } from '../../lib/auth/authorize.service';
import { scopes } from '../../lib/access/scopes';
import { DomainError } from '../../lib/errors';
import { decodeBody } from '../framework/body';
import { dependencyError, errorHeaders } from '../framework/respond';

const escape = (value: unknown) => String(value ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(query: Record<string, unknown>, clientName: string, message = ''): string {
  const requested = typeof query.scope === 'string' && query.scope ? query.scope.split(/[\s,]+/) : Object.keys(scopes);
  const boxes = requested
    .filter((s) => s in scopes)
    .map((s) => `<label><input type="checkbox" name="scope_item" value="${escape(s)}" checked> ${escape(scopes[s as keyof typeof scopes].title)}</label><br>`)
    .join('\n');
  return `<!doctype html><html><head><meta charset="utf-8"><title>Kontor: authorize ${escape(clientName)}</title></head><body>
<h1>${escape(clientName)} asks for access to your Kontor account</h1>
${message ? `<p role="alert">${escape(message)}</p>` : ''}
<form method="post">
<input type="hidden" name="client_id" value="${escape(query.client_id)}">
<input type="hidden" name="state" value="${escape(query.state)}">
<p><label>Login <input name="login" autocomplete="username"></label></p>
<p><label>Password <input name="password" type="password" autocomplete="current-password"></label></p>
<p><label>Portal account id (optional) <input name="portal_account_id"></label></p>
<fieldset><legend>Rights granted</legend>${boxes}</fieldset>
<p><button type="submit">Allow</button></p>
</form></body></html>`;
}

/** PostgreSQL or Redis away: 503 with Retry-After, as the API answers, not a 400 blaming the form. */
function unavailable(err: unknown, req: Request, res: Response): boolean {
  const error = dependencyError(err, req.context.log);
  if (error)
    res
      .status(503)
      .set(errorHeaders(error))
      .type('html')
      .send(`<!doctype html><p>${escape(error.message)}</p>`);
  return error !== undefined;
}

/** authorize.php: the page where a seller grants a third-party client access (document 1, Authentication 2.1). */
export function authorizePage(): express.Router {
  const router = express.Router();
  router.get('/', async (req: Request, res: Response) => {
    try {
      const client = await findClient(req.query.client_id);
      if (req.query.response_type !== undefined && req.query.response_type !== 'code') throw new AuthorizeError('response_type must be code');
      res.type('html').send(page(req.query as Record<string, unknown>, client.name));
    } catch (err) {
      if (unavailable(err, req, res)) return;
      res
        .status(400)
        .type('html')
        .send(`<!doctype html><p>${escape(err instanceof AuthorizeError ? err.message : 'bad request')}</p>`);
    }
  });
  router.post('/', async (req: Request, res: Response) => {
    let form: Record<string, unknown> = {};
    try {
      form = await decodeBody(req);
      const items = form.scope_item;
      const scope = Array.isArray(items) ? items.join(' ') : typeof items === 'string' ? items : form.scope;
      res.redirect(303, await authorizeClient({ ...form, scope }, req.context.address));
    } catch (err) {
      if (unavailable(err, req, res)) return;
      // A form the framework refused (NUL in a field, too large) or a throttled login is the client's error, like AuthorizeError.
      const known = err instanceof AuthorizeError || err instanceof DomainError;
      if (!known) req.context.log.error({ err }, 'authorize failed');
      const name = await findClient(form.client_id).then(
        (c) => c.name,
        () => 'client',
      );
      if (err instanceof DomainError && err.status === 429) res.status(429).set(errorHeaders(err));
      else res.status(400);
      res.type('html').send(page(form, name, known ? err.message : 'the request could not be processed'));
    }
  });
  return router;
}
