/**
 * How every SP-API request goes out: by portalRequest (lib/portals/portal-request.ts), answered in
 * the shape SpApiSession reads of the SDKs' axios (data, status, headers by lower-case name; a
 * status of 300 or more thrown as an error carrying `response`, as axios throws it).
 *
 * The generated clients (`@sp-api-sdk/*`) still build each request (path, query, headers, body)
 * from Amazon's models; `spApiRequester` stands where they would call axios, which cost about
 * twice the CPU per call of Node's http (bench/RESULTS.md: a quantity is one patchListingsItem per
 * SKU). What they use of axios is `request(config)` and `defaults.baseURL`; their calls send no
 * option besides headers and the timeout (sp-api-client.ts), and redirects are not followed, as
 * they were not with axios there.
 */
import type { ListingsItemsApi } from '@sp-api-sdk/listings-items-api-2021-08-01';
import { portalRequest } from '../portal-request';

/** An answer as SpApiSession reads it. */
export interface SpApiAnswer<T> {
  data: T;
  status: number;
  headers: Record<string, string>;
}

export interface SpApiExchange {
  method?: string;
  headers?: Record<string, unknown>;
  body?: string;
  timeoutMs?: number;
}

const defaultTimeoutMs = 30_000;

/** One exchange; the body JSON when it parses, else its text (for the error message), as axios reads it. */
export async function spApiExchange<T>(url: URL, { method = 'GET', headers = {}, body, timeoutMs }: SpApiExchange): Promise<SpApiAnswer<T>> {
  const sent: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined && value !== null) sent[name] = String(value);
  const res = await portalRequest(url, { method: method.toUpperCase(), headers: sent, body, timeoutMs: timeoutMs || defaultTimeoutMs });
  let data: unknown = res.text;
  try {
    data = res.text ? JSON.parse(res.text) : undefined;
  } catch {
    // Not JSON: kept as text.
  }
  const answer: SpApiAnswer<T> = { data: data as T, status: res.status, headers: res.headerFields };
  if (res.status >= 300) throw Object.assign(new Error(`Request failed with status code ${res.status}`), { response: answer });
  return answer;
}

interface GeneratedRequest {
  url: string;
  method?: string;
  headers?: Record<string, unknown>;
  data?: unknown;
  timeout?: number;
}

/** The axios instance the generated clients take (the same type in each SDK). */
type GeneratedClientsAxios = NonNullable<ConstructorParameters<typeof ListingsItemsApi>[2]>;

/** What the generated clients take as their axios instance. */
export const spApiRequester = {
  defaults: {},
  request: ({ url, method, headers, data, timeout }: GeneratedRequest) =>
    spApiExchange(new URL(url), {
      method,
      headers,
      body: data === undefined ? undefined : typeof data === 'string' ? data : JSON.stringify(data),
      timeoutMs: timeout,
    }),
} as unknown as GeneratedClientsAxios;
