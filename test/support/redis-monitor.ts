/**
 * Redis's MONITOR feed over a socket of its own. ioredis's monitor() sets its mode only after the
 * OK is handled, so feed lines that arrive in the same read as the OK (a busy Redis) fail it with
 * "Command queue state error"; MONITOR's lines are simple enough to read here.
 */
import net from 'node:net';
import { config } from '../../config';

export interface MonitoredCommand {
  args: string[];
  /** The client's address, or 'lua' for a command a script sent. */
  source: string;
}

export interface RedisMonitor {
  close(): void;
}

/** Starts the feed; resolves once Redis has answered MONITOR's OK, so every later command is seen. */
export function monitorRedis(seen: (command: MonitoredCommand) => void): Promise<RedisMonitor> {
  const url = new URL(config().redisUrl);
  const socket = net.connect(Number(url.port || 6379), url.hostname);
  let buffered = '';
  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.on('connect', () => {
      const auth = url.password ? `AUTH ${url.username ? `${decodeURIComponent(url.username)} ` : ''}${decodeURIComponent(url.password)}\r\n` : '';
      socket.write(`${auth}MONITOR\r\n`);
    });
    socket.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const lines = buffered.split('\r\n');
      buffered = lines.pop()!;
      for (const line of lines) {
        if (line === '+OK') {
          resolve({ close: () => socket.destroy() });
          continue;
        }
        if (line.startsWith('-')) reject(new Error(`MONITOR refused: ${line}`));
        const command = parseLine(line);
        if (command) seen(command);
      }
    });
  });
}

/** `+1795772694.574524 [0 127.0.0.1:54216] "evalsha" "b6d6..." "1"`: the source and the quoted arguments. */
function parseLine(line: string): MonitoredCommand | undefined {
  const head = /^\+\d+\.\d+ \[\d+ ([^\]]+)\] /.exec(line);
  if (!head) return undefined;
  const args = [...line.slice(head[0].length).matchAll(/"((?:\\.|[^"\\])*)"/g)].map((m) => m[1]!.replace(/\\(["\\])/g, '$1'));
  return { args, source: head[1]! };
}
