import crypto from 'node:crypto';
import express, { Request, Response } from 'express';
import { config } from '../../config';
import {
  AuthorizationRequest,
  AuthorizeFormError,
  AuthorizeOutcome,
  AuthorizePageError,
  confirm,
  consentStep,
  readAuthorizationRequest,
  signIn,
  tickedScopes,
} from '../../lib/auth';
import { DomainError } from '../../lib/errors';
import { decodeBody } from '../framework/body';
import { dependencyError, errorHeaders } from '../framework/respond';
import { errorPage, portalAccountPage, signInPage } from './authorize.page';

/*
 * CSRF (RFC 6749 10.12 for the page itself): a random value in an HttpOnly SameSite=Strict cookie
 * and in every form of the page; a POST whose form value differs from its cookie is refused.
 */
const csrfCookie = 'kontor_authorize_csrf';

function csrfOf(req: Request): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === csrfCookie && /^[A-Za-z0-9_-]{43}$/.test(value.join('='))) return value.join('=');
  }
  return undefined;
}

/** The page's CSRF value: the browser's own when it sent one, else a new cookie. */
function ensureCsrf(req: Request, res: Response): string {
  const value = csrfOf(req) ?? crypto.randomBytes(32).toString('base64url');
  res.cookie(csrfCookie, value, { httpOnly: true, sameSite: 'strict', secure: config().publicUrl.startsWith('https:'), path: '/', maxAge: 3600_000 });
  return value;
}

function csrfMatches(req: Request, form: Record<string, unknown>): boolean {
  const cookie = csrfOf(req);
  const sent = typeof form.csrf === 'string' ? form.csrf : '';
  return cookie !== undefined && sent.length === cookie.length && crypto.timingSafeEqual(Buffer.from(sent), Buffer.from(cookie));
}

const html = (res: Response, status: number, body: string) => res.status(status).set('Cache-Control', 'no-store').type('html').send(body);

function follow(res: Response, outcome: Extract<AuthorizeOutcome, { kind: 'redirect' }>): void {
  res.set('Cache-Control', 'no-store').redirect(303, outcome.url);
}

/** PostgreSQL or Redis away: 503 with Retry-After, as the API answers, not a 400 blaming the form. */
function unavailable(err: unknown, req: Request, res: Response): boolean {
  const error = dependencyError(err, req.context.log);
  if (error) html(res.set(errorHeaders(error)), 503, errorPage(error.message));
  return error !== undefined;
}

/** Anything else that went wrong: a page error, or a 500 page logged (never the form's fields). */
function failed(err: unknown, req: Request, res: Response): void {
  if (unavailable(err, req, res)) return;
  if (err instanceof AuthorizePageError) return void html(res, 400, errorPage(err.message));
  if (err instanceof DomainError) return void html(res, 400, errorPage(err.message));
  req.context.log.error({ err }, 'authorize failed');
  html(res, 500, errorPage('Something went wrong on our side. Please try again.'));
}

/** Step 1 sent: sign in with the ticked rights, or deny. */
async function signInStep(req: Request, res: Response, form: Record<string, unknown>, csrf: string): Promise<void> {
  const { request, error } = await readAuthorizationRequest(form);
  if (error?.kind === 'redirect') return follow(res, error);
  const ticked = tickedScopes(request, form.scope_item);
  const again = (status: number, message: string) =>
    html(res, status, signInPage(request, csrf, { ticked, login: typeof form.login === 'string' ? form.login : '', message }));
  try {
    const outcome = await signIn(
      request,
      { login: form.login, password: form.password, scope: ticked, deny: form.decision === 'deny' },
      req.context.address,
      csrf,
    );
    if (outcome.kind === 'redirect') return follow(res, outcome);
    html(res, 200, portalAccountPage(outcome.consent, csrf));
  } catch (err) {
    if (err instanceof AuthorizeFormError) return void again(400, err.message);
    // The login throttle (429 too_many_login_attempts, or 503 when Redis cannot count the attempt:
    // it fails closed; both with Retry-After) or a refused field (NUL in the login).
    if (err instanceof DomainError) {
      const retry = err.status === 429 || err.status === 503;
      if (retry) res.set(errorHeaders(err));
      return void again(retry ? err.status : 400, err.message);
    }
    throw err;
  }
}

/** Step 2 sent: the portal account picked, allow or deny. */
async function confirmStep(res: Response, form: Record<string, unknown>, csrf: string, ticket: string): Promise<void> {
  try {
    const outcome = await confirm(ticket, csrf, { portalAccount: form.portal_account, deny: form.decision === 'deny' });
    if (outcome.kind === 'redirect') follow(res, outcome);
  } catch (err) {
    if (!(err instanceof AuthorizeFormError)) throw err;
    html(res, 400, portalAccountPage(await consentStep(ticket, csrf), csrf, err.message));
  }
}

/** authorize.php: the page where a seller grants a third-party client access (document 1, Authentication 2.1). */
export function authorizePage(): express.Router {
  const router = express.Router();
  router.get('/', async (req: Request, res: Response) => {
    try {
      const { request, error } = await readAuthorizationRequest(req.query as Record<string, unknown>);
      if (error?.kind === 'redirect') return follow(res, error);
      html(res, 200, signInPage(request, ensureCsrf(req, res), { ticked: request.requested }));
    } catch (err) {
      failed(err, req, res);
    }
  });
  router.post('/', async (req: Request, res: Response) => {
    try {
      const form = await decodeBody(req);
      if (!csrfMatches(req, form)) return void (await expired(req, res, form));
      const csrf = csrfOf(req)!;
      if (typeof form.consent === 'string') return await confirmStep(res, form, csrf, form.consent);
      await signInStep(req, res, form, csrf);
    } catch (err) {
      failed(err, req, res);
    }
  });
  return router;
}

/**
 * A form without its page's CSRF value (sent from elsewhere, or the cookie expired): nothing is
 * done; the sign-in form again with a fresh value, so a seller whose page was old goes on.
 */
async function expired(req: Request, res: Response, form: Record<string, unknown>): Promise<void> {
  let request: AuthorizationRequest;
  try {
    ({ request } = await readAuthorizationRequest(form));
  } catch {
    return void html(res, 403, errorPage('This form has expired. Go back to the application and start again.'));
  }
  const message = 'This form has expired or was not sent from this page. Please check the rights and sign in again.';
  html(res, 403, signInPage(request, ensureCsrf(req, res), { ticked: request.requested, message }));
}
