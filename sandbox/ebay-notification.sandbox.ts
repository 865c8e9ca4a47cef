/**
 * The sandbox eBay's Notification API part that account deletion needs: getPublicKey
 * (GET /commerce/notification/v1/public_key/{public_key_id}: {algorithm, digest, key}; no
 * contract file of the Notification API is in the shared folder, so it is not contract-checked;
 * eBay asks for an application token, the sandbox for none)
 * and POST /_sandbox/ebay/account_deletion {username, user_id}: a MARKETPLACE_ACCOUNT_DELETION
 * notification signed as eBay signs it (ECDSA, SHA1, X-EBAY-SIGNATURE base64 of {alg, kid,
 * signature, digest}), answered as {body, headers} for a test to post to the endpoint.
 */
import crypto from 'node:crypto';
import type express from 'express';
import type { Request, Response } from 'express';

const keys = crypto.generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const kid = `sandbox-${crypto
  .createHash('sha1')
  .update(keys.publicKey.export({ type: 'spki', format: 'der' }))
  .digest('hex')
  .slice(0, 12)}`;

export function mountNotification(app: express.Express): void {
  app.get('/commerce/notification/v1/public_key/:id', (req: Request, res: Response) => {
    if (req.params.id !== kid) {
      res.status(404).json({ errors: [{ errorId: 195001, domain: 'API_NOTIFICATION', category: 'REQUEST', message: 'The public key is not found.' }] });
      return;
    }
    // eBay answers the PEM on one line.
    res.json({ algorithm: 'ECDSA', digest: 'SHA1', key: String(keys.publicKey.export({ type: 'spki', format: 'pem' })).replace(/\n/g, '') });
  });
  app.post('/_sandbox/ebay/account_deletion', (req: Request, res: Response) => {
    const given = (req.body ?? {}) as { username?: string; user_id?: string };
    const body = JSON.stringify({
      metadata: { topic: 'MARKETPLACE_ACCOUNT_DELETION', schemaVersion: '1.0', deprecated: false },
      notification: {
        notificationId: crypto.randomUUID(),
        eventDate: new Date().toISOString(),
        publishDate: new Date().toISOString(),
        publishAttemptCount: 1,
        data: {
          username: given.username ?? 'sandbox_buyer',
          userId: given.user_id ?? 'ma8vp1jySJC',
          eiasToken: 'nY+sHZ2PrBmdj6wVnY+sEZ2PrA2dj6wJnY+gAZGEpwmdj6x9nY+seQ==',
        },
      },
    });
    const signature = crypto.sign('sha1', Buffer.from(body), keys.privateKey).toString('base64');
    const header = Buffer.from(JSON.stringify({ alg: 'ecdsa', kid, signature, digest: 'SHA1' })).toString('base64');
    res.json({ body, headers: { 'Content-Type': 'application/json', 'X-EBAY-SIGNATURE': header } });
  });
}
