/**
 * eBay Marketplace Account Deletion/Closure notifications (developer.ebay.com/marketplace-account-deletion,
 * AsyncAPI marketplace_account_deletion.yaml): every production application that keeps eBay
 * users' data must answer them. Two requests reach the application's endpoint:
 * - GET ?challenge_code=...: the answer is {"challengeResponse": hex SHA-256 of challenge code,
 *   verification token and endpoint URL, concatenated in that order};
 * - POST with the notification (metadata.topic MARKETPLACE_ACCOUNT_DELETION, notification.data
 *   username, userId, eiasToken) and X-EBAY-SIGNATURE: base64 of {alg, kid, signature, digest};
 *   the raw body is verified with the public key `kid` of the Notification API (getPublicKey,
 *   ECDSA with SHA1, cached as eBay advises); a notification that fails is answered 412.
 * What Kontor deletes or anonymises for the user is the caller's (the order domain's) part.
 */
import crypto from 'node:crypto';

/** The challenge answer of the endpoint's GET. */
export function ebayChallengeResponse(challengeCode: string, verificationToken: string, endpoint: string): { challengeResponse: string } {
  return { challengeResponse: crypto.createHash('sha256').update(challengeCode).update(verificationToken).update(endpoint).digest('hex') };
}

/** The eBay user whose data must go. */
export interface EbayDeletedUser {
  notificationId: string;
  username: string;
  userId: string;
  eiasToken: string;
}

/** A notification Kontor must not act on: answered with this status (412: eBay's "precondition failed" for a bad signature). */
export class EbayNotificationRefused extends Error {
  constructor(
    message: string,
    readonly status = 412,
  ) {
    super(message);
  }
}

/** eBay's public keys come as PEM, sometimes on one line: the base64 is rewrapped for Node's key parser. */
function pem(key: string): string {
  const body = key.replace(/-----(BEGIN|END) PUBLIC KEY-----/g, '').replace(/\s+/g, '');
  return `-----BEGIN PUBLIC KEY-----\n${body.match(/.{1,64}/g)!.join('\n')}\n-----END PUBLIC KEY-----\n`;
}

/** X-EBAY-SIGNATURE as eBay sends it: base64 of a JSON object. */
interface SignatureHeader {
  alg?: string;
  kid: string;
  signature: string;
  digest?: string;
}

/**
 * The header read, or refused (412) when it is missing, not base64 JSON, not an object, or names
 * kid or signature that are not non-empty texts, or alg or digest that are not texts: whatever
 * anyone can send this public endpoint is a 412, never a 500 (base64 of `null` was).
 */
function signatureOf(header: string | undefined): SignatureHeader {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(header ?? '', 'base64').toString('utf8'));
  } catch {
    throw new EbayNotificationRefused('X-EBAY-SIGNATURE is missing or not base64 JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new EbayNotificationRefused('X-EBAY-SIGNATURE is not a JSON object');
  const { alg, kid, signature, digest } = parsed as Record<string, unknown>;
  if (typeof kid !== 'string' || !kid || typeof signature !== 'string' || !signature)
    throw new EbayNotificationRefused('X-EBAY-SIGNATURE names no kid or signature');
  if ((alg !== undefined && typeof alg !== 'string') || (digest !== undefined && typeof digest !== 'string'))
    throw new EbayNotificationRefused('X-EBAY-SIGNATURE has an alg or digest that is no text');
  return { kid, signature, ...(alg !== undefined ? { alg } : {}), ...(digest !== undefined ? { digest } : {}) };
}

/**
 * The user of a verified notification. `publicKey(kid)` answers the Notification API's key
 * (getPublicKey: {algorithm, digest, key}); the raw body is what eBay signed (never a re-serialised one).
 */
export async function readEbayDeletion(
  rawBody: string,
  signatureHeader: string | undefined,
  publicKey: (kid: string) => Promise<{ algorithm?: string; digest?: string; key: string }>,
): Promise<EbayDeletedUser> {
  const signature = signatureOf(signatureHeader);
  const key = await publicKey(signature.kid);
  if ((key.algorithm ?? signature.alg ?? 'ECDSA').toUpperCase() !== 'ECDSA')
    throw new EbayNotificationRefused(`unsupported signature algorithm ${key.algorithm}`);
  const digest = (key.digest ?? signature.digest ?? 'SHA1').toLowerCase().replace('-', '');
  // The header's digest (when eBay's key names none) is anyone's text: one Node does not know is refused, not thrown by crypto.verify.
  if (!crypto.getHashes().includes(digest)) throw new EbayNotificationRefused(`X-EBAY-SIGNATURE names an unknown digest ${digest}`);
  const valid = crypto.verify(digest, Buffer.from(rawBody, 'utf8'), pem(key.key), Buffer.from(signature.signature, 'base64'));
  if (!valid) throw new EbayNotificationRefused('the notification does not match its signature');
  const message = JSON.parse(rawBody) as {
    metadata?: { topic?: string };
    notification?: { notificationId?: string; data?: { username?: string; userId?: string; eiasToken?: string } };
  };
  if (message.metadata?.topic !== 'MARKETPLACE_ACCOUNT_DELETION')
    throw new EbayNotificationRefused(`not an account deletion: ${String(message.metadata?.topic)}`, 400);
  const data = message.notification?.data ?? {};
  return {
    notificationId: message.notification?.notificationId ?? '',
    username: data.username ?? '',
    userId: data.userId ?? '',
    eiasToken: data.eiasToken ?? '',
  };
}
