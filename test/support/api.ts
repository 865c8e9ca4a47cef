/**
 * Test client: the app on an ephemeral port, requests as a client sends them, and sellers made
 * fresh for each test so that tests never depend on each other.
 */
import crypto from 'node:crypto';
import type { AddressInfo } from 'node:net';
import http, { type Server } from 'node:http';
import { createApp } from '../../server/app';
import { createSeller } from '../../lib/account/account.service';
import { config, setConfig } from '../../config';

let server: Server | undefined;
let base = '';

export async function apiBase(): Promise<string> {
  if (!server) {
    server = createApp().listen(0, '127.0.0.1');
    // The test's fetch and this server share one event loop. Fetch reuses an idle socket until the
    // server's Keep-Alive hint less a second; a call after a wait near Node's default of 5 s (tests
    // wait a few seconds for workers), delayed by a stall of a loaded machine, met the server's idle
    // timer closing that socket: ECONNRESET (seen a few times under load). 30 s moves the edge past
    // the waits the tests make.
    server.keepAliveTimeout = 30000;
    await new Promise((resolve) => server!.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }
  return base;
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed JSON body (empty object for non-JSON answers). */
  body: Record<string, unknown> & {
    ack?: string;
    error?: { error: string; field?: string; code: number; description?: string }[];
    warning?: { warning: string; field?: string }[];
  };
}

export interface RequestOptions {
  method?: string;
  token?: string;
  headers?: Record<string, string>;
  /** An object is sent as JSON; a string or Buffer as it is. */
  body?: unknown;
  version?: string;
  /** Another server of the API (a spawned web process); default the in-process app. */
  base?: string;
}

/**
 * A GET by node:http, for conditional reads: fetch adds Cache-Control: no-cache to a request with
 * If-None-Match, which makes any answer stale (never a 304).
 */
export function plainGet(token: string, path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    void apiBase().then((base) => {
      const req = http.get(`${base}/v1.1/${path}`, { headers: { Authorization: `Bearer ${token}`, ...headers } }, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      });
      req.on('error', reject);
    }, reject);
  });
}

export async function call(path: string, options: RequestOptions = {}): Promise<ApiResponse> {
  const url = `${options.base ?? (await apiBase())}/${options.version ?? 'v1.1'}/${path}`;
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.Authorization = `Bearer ${options.token}`;
  let body: string | Buffer | undefined;
  if (options.body !== undefined) {
    if (typeof options.body === 'string' || Buffer.isBuffer(options.body)) body = options.body;
    else {
      body = JSON.stringify(options.body);
      headers['Content-Type'] ??= 'application/json';
    }
  }
  const res = await fetch(url, { method: options.method ?? (body === undefined ? 'GET' : 'POST'), headers, body });
  const text = await res.text();
  let parsed = {};
  try {
    parsed = JSON.parse(text);
  } catch {
    /* XML or empty */
  }
  return { status: res.status, headers: res.headers, text, body: parsed };
}

export interface Seller {
  id: number;
  login: string;
  password: string;
  portalAccountId: number;
  token: string;
}

/** A new seller with a token holding every scope (or the scopes given). */
export async function newSeller(scope?: string): Promise<Seller> {
  const login = `seller_${crypto.randomBytes(6).toString('hex')}`;
  const password = `pw-${crypto.randomBytes(8).toString('hex')}`;
  const created = await createSeller(login, password);
  const token = await tokenFor(login, password, scope);
  return { id: created.id, login, password, portalAccountId: created.portal_account_id, token };
}

export async function tokenFor(login: string, password: string, scope?: string): Promise<string> {
  const res = await call('token.php', {
    headers: { Authorization: `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: `grant_type=client_credentials${scope ? `&scope=${encodeURIComponent(scope)}` : ''}`,
  });
  if (res.status !== 200) throw new Error(`token.php answered ${res.status}: ${res.text}`);
  return res.body.access_token as string;
}

/** Bracket query string from an object, as clients build GET data. */
export function query(params: Record<string, unknown>): string {
  const parts: string[] = [];
  const walk = (value: unknown, key: string) => {
    if (value !== null && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) walk(v, `${key}[${k}]`);
    } else parts.push(`${encodeURIComponent(key).replace(/%5B/g, '[').replace(/%5D/g, ']')}=${encodeURIComponent(String(value ?? ''))}`);
  };
  for (const [k, v] of Object.entries(params)) walk(v, k);
  return parts.join('&');
}

/**
 * Runs work with CONCURRENT_CALLS_PER_ACCOUNT raised to calls: for tests of one account's requests
 * racing each other in the database (document 1's default processes 1 call at a time).
 */
export async function withConcurrentCalls<T>(calls: number, work: () => Promise<T>): Promise<T> {
  const original = config();
  setConfig({ ...original, concurrentCallsPerAccount: calls });
  try {
    return await work();
  } finally {
    setConfig(original);
  }
}

/** Every error field of an answer, in order (what a 400 names). */
export const errorFields = (res: { body: { error?: { field?: string }[] } }): (string | undefined)[] => (res.body.error ?? []).map((e) => e.field);
