/**
 * kontor portal-account connect: a portal account names its connector (the channel's real API
 * or the generic JSON dialect), its base URL and its credentials, which are sealed when stored
 * (lib/secret) and never answered. Support runs it with what the seller's consent at the channel
 * gave (a refresh token), never a hand-written SQL line.
 */
import Joi from 'joi';
import { invalidField } from '../errors';
import { portalAccountRepository, getPortalAccount, portalTargetRepository } from '../portal-account';
import { Connector, connectorCredentials, connectors, realConnectors, kauflandApiUrl, kauflandStorefronts, shopifyDomainPattern } from '../portals';

/** The channels' production endpoints, used when no --base-url is given (a json account without one calls the sandbox). */
const productionUrls: Record<Exclude<Connector, 'json' | 'shopify'>, string> = {
  ebay: 'https://api.ebay.com',
  amazon_sp: 'https://sellingpartnerapi-eu.amazon.com',
  kaufland: kauflandApiUrl,
};

const credentialNames = [
  'client_id',
  'client_secret',
  'refresh_token',
  'seller_id',
  'marketplace_id',
  'client_key',
  'secret_key',
  'storefront',
  'shop_domain',
  'access_token',
] as const;
type CredentialName = (typeof credentialNames)[number];

export interface ConnectInput {
  portalAccountId: number;
  connector: string;
  baseUrl?: string;
  credentials: Partial<Record<CredentialName, string>>;
}

const option = (name: string) => `--${name.replace(/_/g, '-')}`;
const secretValue = Joi.string().min(1).max(4000).pattern(/^\S+$/);

/** The portal a connector belongs to, and the account's platform after connecting. */
function platformFor(connector: Connector, platform: string | null): string | null {
  if (connector === 'json') return platform;
  const portal = Object.keys(realConnectors).find((p) => realConnectors[p] === connector)!;
  if (platform !== null && platform !== portal) {
    throw invalidField('connector', `--connector ${connector} speaks to ${portal}; this portal account is one of ${platform}`);
  }
  return portal;
}

function checkedCredentials(connector: Connector, given: ConnectInput['credentials']): Record<string, string> {
  const wanted = connector === 'json' ? (['client_id', 'client_secret'] as const) : connectorCredentials[connector];
  const credentials: Record<string, string> = {};
  for (const name of credentialNames) {
    const value = given[name];
    if (value === undefined || value === '') {
      if (connector !== 'json' && wanted.includes(name)) throw invalidField(option(name), `${option(name)} is required for --connector ${connector}`);
      continue;
    }
    if (!wanted.includes(name)) throw invalidField(option(name), `${option(name)} is not used by --connector ${connector}`);
    if (secretValue.validate(value).error) throw invalidField(option(name), `${option(name)} is not valid (1 to 4000 characters, no spaces)`);
    if (name === 'storefront' && !(kauflandStorefronts as readonly string[]).includes(value))
      throw invalidField(option(name), `${option(name)} must be one of Kaufland's storefronts ${kauflandStorefronts.join(', ')}`);
    if (name === 'shop_domain' && !shopifyDomainPattern.test(value))
      throw invalidField(option(name), `${option(name)} must be the store's <name>.myshopify.com domain`);
    credentials[name] = value;
  }
  if (connector === 'json' && (credentials.client_id === undefined) !== (credentials.client_secret === undefined)) {
    throw invalidField('client-secret', '--client-id and --client-secret go together');
  }
  return credentials;
}

export async function connectPortalAccount(accountId: number, input: ConnectInput) {
  const row = await getPortalAccount(accountId, input.portalAccountId);
  if (!(connectors as readonly string[]).includes(input.connector)) {
    throw invalidField('connector', `--connector must be one of ${connectors.join(', ')}`);
  }
  const connector = input.connector as Connector;
  const platform = platformFor(connector, row.platform);
  // A Shopify store's Admin API is at its own domain; the other channels have one production URL.
  const shopDomain = input.credentials.shop_domain;
  const baseUrl =
    input.baseUrl ?? (connector === 'json' ? null : connector === 'shopify' ? (shopDomain ? `https://${shopDomain}` : null) : productionUrls[connector]);
  if (
    baseUrl !== null &&
    Joi.string()
      .uri({ scheme: ['https', 'http'] })
      .validate(baseUrl).error
  )
    throw invalidField('base-url', '--base-url is not an http(s) URL');
  const credentials = checkedCredentials(connector, input.credentials);
  await portalAccountRepository.connect(accountId, row.id, { platform, connector, base_url: baseUrl, credentials });
  portalTargetRepository.forget(accountId, row.id);
  // The answer names which credentials are kept, never their values.
  return { id: row.id, name: row.name, platform, connector, base_url: baseUrl, credentials: Object.keys(credentials) };
}
