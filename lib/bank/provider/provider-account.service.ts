/**
 * A seller connects a payment provider account (PayPal): its REST app's client credentials,
 * stored like a portal account's and never answered; the scheduler syncs it from then on.
 */
import Joi from 'joi';
import { invalidField } from '../../errors';
import { providerAccountRepository } from './provider-account.repository';

/** PayPal's live API; its sandbox is https://api-m.sandbox.paypal.com, Kontor's own the sandbox URL. */
export const payPalLive = 'https://api-m.paypal.com';

export interface ConnectInput {
  name: string;
  clientId: string;
  clientSecret: string;
  baseUrl?: string;
}

export async function connectProvider(accountId: number, input: ConnectInput): Promise<{ id: number; name: string; provider: string; base_url: string }> {
  const baseUrl = input.baseUrl ?? payPalLive;
  const checks: [string, Joi.Schema, string][] = [
    ['name', Joi.string().min(1).max(100), input.name],
    ['client-id', Joi.string().min(1).max(200).pattern(/^\S+$/), input.clientId],
    ['client-secret', Joi.string().min(1).max(200).pattern(/^\S+$/), input.clientSecret],
    ['base-url', Joi.string().uri({ scheme: ['https', 'http'] }), baseUrl],
  ];
  for (const [field, schema, value] of checks) {
    if (schema.validate(value).error) throw invalidField(field, `--${field} is not valid`);
  }
  const id = await providerAccountRepository.insert(accountId, {
    name: input.name,
    provider: 'paypal',
    base_url: baseUrl,
    credentials: { client_id: input.clientId, client_secret: input.clientSecret },
  });
  return { id, name: input.name, provider: 'paypal', base_url: baseUrl };
}
