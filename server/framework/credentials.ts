import type { Request } from 'express';
import { unauthenticated } from '../../lib/errors';
import { checkText } from '../../lib/http';

/** The bearer token of a resource request; 401 when there is none. */
export function bearerToken(req: Request): string {
  const header = req.headers.authorization ?? '';
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw unauthenticated('missing_token', 'send Authorization: Bearer <access token>; get one at token.php');
  return match[1]!;
}

/** HTTP Basic credentials (token.php), or undefined. */
export function basicCredentials(req: Request): { user: string; password: string } | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(req.headers.authorization ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  checkText(decoded, 'Authorization');
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}
