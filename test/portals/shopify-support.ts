/** What the Shopify adapter suites share: the sandbox keeping Shopify's contract, and a new store (portal account) for each test. */
import type { Config } from '../../config';
import { connectPaths, developmentShopifyApplication } from '../../config/channel-apps';
import type { PortalTarget } from '../../lib/portals/portal.type';
import { Sandbox, sandboxKeepingContract } from '../fleet/support';

export interface ShopifyStore {
  sandbox: Sandbox;
  /** A portal account id no other test uses: the sandbox's store of this test. */
  account: number;
  target: PortalTarget;
}

/** Starts the sandbox for the suite (its Shopify contract kept after each test) and gives each test its own store. */
export function shopifyStoreForEach(given: (store: ShopifyStore) => void): void {
  let sandbox: Sandbox;
  sandboxKeepingContract('shopify', (started) => (sandbox = started));
  beforeEach(() => {
    const account = 800000 + Math.floor(Math.random() * 100000);
    given({ sandbox, account, target: { portalAccountId: account, connector: 'shopify', baseUrl: sandbox.url, credentials: {} } });
  });
}

/** A POST of JSON to the sandbox (its controls, or Shopify's GraphQL with a token header): the status and the JSON answer. */
export async function postToSandbox(
  sandbox: Sandbox,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${sandbox.url}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** The configuration with Kontor's development app installed at the sandbox's stores (storeUrl), its consent and webhooks coming back to the API at base. */
export function withDevelopmentShopifyApp(original: Config, base: string, storeUrl: string): Config {
  return {
    ...original,
    shopifyApplication: {
      ...original.shopifyApplication,
      apiKey: developmentShopifyApplication.apiKey,
      apiSecret: developmentShopifyApplication.apiSecret,
      redirectUri: `${base}${connectPaths.shopifyCallback}`,
      webhookUrl: `${base}${connectPaths.shopifyWebhooks}`,
      storeUrl,
    },
  };
}
