import pino from 'pino';
import { config } from '../config';

/**
 * Paths that could carry a secret anywhere they appear in a logged object. The request logger
 * never logs headers or bodies, so this is a second line of defence.
 */
const redact = [
  'password', '*.password', 'token', '*.token', 'access_token', '*.access_token',
  'refresh_token', '*.refresh_token', 'client_secret', '*.client_secret', 'authorization',
  '*.authorization', 'headers.authorization', 'req.headers.authorization', 'credentials', '*.credentials',
];

export const log = pino({
  level: config().logLevel,
  base: { service: 'kontor', pid: process.pid },
  redact: { paths: redact, censor: '[redacted]' },
  timestamp: pino.stdTimeFunctions.isoTime,
});

export type Logger = typeof log;
