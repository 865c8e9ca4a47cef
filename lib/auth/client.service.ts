import crypto from 'node:crypto';
import { clientRepository } from './client.repository';
import { secretHash } from './secret';

/** Registers third-party software (document 1: done by support); the secret is shown once. */
export async function createClient(name: string, redirectUri: string): Promise<{ client_id: string; client_secret: string }> {
  const clientId = `kc_${crypto.randomBytes(12).toString('hex')}`;
  const clientSecret = crypto.randomBytes(32).toString('base64url');
  await clientRepository.insert({ client_id: clientId, secret_hash: secretHash(clientSecret), name, redirect_uri: redirectUri });
  return { client_id: clientId, client_secret: clientSecret };
}
