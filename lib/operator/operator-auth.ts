import crypto from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { config } from '../../config';

const same = (a: string, b: string) => {
  const x = crypto.createHash('sha256').update(a).digest();
  const y = crypto.createHash('sha256').update(b).digest();
  return crypto.timingSafeEqual(x, y);
};

/**
 * Basic authentication with the operator credentials of the configuration. Without a
 * configured password the operator pages are off (503), never open.
 */
export function operatorAuth(req: Request, res: Response, next: NextFunction): void {
  const { operatorUser, operatorPassword } = config();
  if (!operatorPassword) {
    res.status(503).json({ message: 'operator pages are disabled: set OPERATOR_PASSWORD (and OPERATOR_USER)' });
    return;
  }
  const header = req.get('Authorization') ?? '';
  const match = /^Basic\s+(.+)$/i.exec(header);
  const decoded = match ? Buffer.from(match[1]!, 'base64').toString('utf8') : '';
  const colon = decoded.indexOf(':');
  if (colon < 0 || !same(decoded.slice(0, colon), operatorUser) || !same(decoded.slice(colon + 1), operatorPassword)) {
    res.set('WWW-Authenticate', 'Basic realm="kontor operator"').status(401).json({ message: 'operator credentials required' });
    return;
  }
  next();
}
