/**
 * The pino lines the process writes while `work` runs (tests run with LOG_LEVEL=silent: the
 * level, and the request line's, is raised to info meanwhile). Reads the root logger's own stream, so lines of the
 * logger and of children made from it meanwhile are seen.
 */
import pino from 'pino';
import { log, requestLog } from '../../lib/log';

interface Writable {
  write(line: string): unknown;
}

export async function capturedLog(work: () => Promise<unknown>): Promise<{ lines: Record<string, unknown>[]; text: string }> {
  const stream = (log as unknown as Record<symbol, Writable>)[pino.symbols.streamSym]!;
  const write = stream.write;
  const level = log.level;
  let text = '';
  stream.write = (line: string) => {
    text += line;
    return true;
  };
  log.level = 'info';
  requestLog.level = 'info';
  try {
    await work();
  } finally {
    stream.write = write;
    log.level = level;
    requestLog.level = level;
  }
  const lines = text
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { lines, text };
}
