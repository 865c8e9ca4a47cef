/**
 * authorize.php as a browser drives it, without a browser: the page's cookie and hidden fields
 * carried from step to step (sign-in with the rights ticked, then the portal account).
 */
import { apiBase } from './api';

export interface PageAnswer {
  status: number;
  headers: Headers;
  html: string;
  /** The hidden fields of the page's form. */
  hidden: Record<string, string>;
  cookie: string;
}

const unescape = (value: string) => value.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));

function read(res: Response, html: string, cookie: string): PageAnswer {
  const hidden: Record<string, string> = {};
  for (const match of html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) hidden[unescape(match[1]!)] = unescape(match[2]!);
  const set = res.headers.get('set-cookie');
  return { status: res.status, headers: res.headers, html, hidden, cookie: set ? set.split(';')[0]! : cookie };
}

export async function openAuthorize(query: Record<string, string>, headers: Record<string, string> = {}): Promise<PageAnswer> {
  return openAuthorizeUrl(`${await apiBase()}/v1.1/authorize.php?${new URLSearchParams(query)}`, headers);
}

/** The page at a full URL (as an OAuth client library builds it). */
export async function openAuthorizeUrl(url: string, headers: Record<string, string> = {}): Promise<PageAnswer> {
  const res = await fetch(url, { redirect: 'manual', headers });
  return read(res, await res.text(), '');
}

/** Sends a page's form with these fields added (arrays become repeated fields). */
export async function sendForm(page: PageAnswer, fields: Record<string, string | string[]>, headers: Record<string, string> = {}): Promise<PageAnswer> {
  const body = new URLSearchParams(page.hidden);
  for (const [name, value] of Object.entries(fields)) for (const v of Array.isArray(value) ? value : [value]) body.append(name, v);
  const res = await fetch(`${await apiBase()}/v1.1/authorize.php`, {
    method: 'POST',
    body,
    redirect: 'manual',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...(page.cookie ? { Cookie: page.cookie } : {}), ...headers },
  });
  return read(res, await res.text(), page.cookie);
}

export interface Authorized {
  code: string;
  location: URL;
}

/**
 * The whole consent: opens the page for the client, ticks `scope` (default: every requested one),
 * signs in, picks the portal account (default: the preselected one) and allows.
 */
export async function authorizeClient(options: {
  clientId: string;
  login: string;
  password: string;
  query?: Record<string, string>;
  /** The page's full URL instead of clientId and query. */
  url?: string;
  tick?: string[];
  portalAccount?: number | 'all';
}): Promise<Authorized> {
  const page = options.url
    ? await openAuthorizeUrl(options.url)
    : await openAuthorize({ response_type: 'code', client_id: options.clientId, ...options.query });
  if (page.status !== 200) throw new Error(`authorize.php answered ${page.status}: ${page.html}`);
  const tick = options.tick ?? [...page.html.matchAll(/name="scope_item" value="([^"]+)"/g)].map((m) => m[1]!);
  const step2 = await sendForm(page, { login: options.login, password: options.password, scope_item: tick, decision: 'allow' });
  if (step2.status !== 200 || !step2.hidden.consent) throw new Error(`sign-in answered ${step2.status}: ${step2.html}`);
  const preselected = /name="portal_account" value="([^"]+)" checked/.exec(step2.html)?.[1] ?? 'all';
  const done = await sendForm(step2, { portal_account: String(options.portalAccount ?? preselected), decision: 'allow' });
  if (done.status !== 303) throw new Error(`confirm answered ${done.status}: ${done.html}`);
  const location = new URL(done.headers.get('location')!);
  return { code: location.searchParams.get('code')!, location };
}
