import net from 'node:net';

/**
 * A TCP proxy on loopback between a web process and PostgreSQL that can lose what happens at one
 * transaction's COMMIT: the answer to it (PostgreSQL committed, the web never learns), or the
 * COMMIT itself (PostgreSQL never commits; the transaction rolls back when the connection goes).
 * Optionally the network is cut at that moment too, so the web cannot ask on a new connection
 * either, until heal(). Nothing is closed or reset: neither end learns of it from TCP, as with a
 * partition or a NAT that forgot the flow.
 *
 * Which COMMIT: the first, after arm(), on a connection whose statements since its last COMMIT
 * named `marker` (a table the request writes), so other transactions pass untouched.
 */
export type CommitLoss =
  /** COMMIT reaches PostgreSQL; its answer, and anything after it on that connection, is dropped. */
  | 'answer'
  /** As 'answer', and from then on no bytes flow on any connection until heal(). */
  | 'answer-and-network'
  /** COMMIT is dropped (never reaches PostgreSQL), and no bytes flow on any connection until heal(). */
  | 'commit-and-network';

export interface CommitProxy {
  port: number;
  arm(loss: CommitLoss, marker: string): void;
  /** Whether the armed loss happened. */
  readonly struck: boolean;
  /** Bytes flow again, on every connection but the one whose COMMIT was struck (it stays silent). */
  heal(): void;
  close(): Promise<void>;
}

/**
 * The end of a simple-protocol Query message whose last statement is `COMMIT;` (Knex's text):
 * the message is `COMMIT;` alone, or a request's Idempotency-Key mark and then `COMMIT;` (lib/db
 * commit-marks.ts).
 */
const commitMessage = Buffer.from('COMMIT;\0', 'latin1');

export async function startCommitProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<CommitProxy> {
  let armed: { loss: CommitLoss; marker: Buffer } | undefined;
  let struck = false;
  let cut = false;
  const sockets = new Set<net.Socket>();
  const silenced = new WeakSet<net.Socket>();
  const server = net.createServer((inbound) => {
    const outbound = net.connect(targetPort, targetHost);
    let marked = false;
    for (const socket of [inbound, outbound]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => sockets.delete(socket));
    }
    inbound.on('data', (chunk: Buffer) => {
      if (cut || silenced.has(inbound)) return;
      if (armed && chunk.includes(armed.marker)) marked = true;
      if (armed && marked && chunk.includes(commitMessage)) {
        const { loss } = armed;
        armed = undefined;
        struck = true;
        silenced.add(inbound);
        if (loss !== 'commit-and-network') outbound.write(chunk);
        if (loss !== 'answer') cut = true;
        return;
      }
      if (chunk.includes(commitMessage)) marked = false;
      outbound.write(chunk);
    });
    outbound.on('data', (chunk: Buffer) => {
      if (!cut && !silenced.has(inbound)) inbound.write(chunk);
    });
    inbound.on('end', () => outbound.end());
    outbound.on('end', () => inbound.end());
    // The web giving up its connection (its socket destroyed) reaches PostgreSQL as TCP tells it:
    // a transaction whose COMMIT never arrived rolls back then.
    inbound.on('close', () => outbound.destroy());
    outbound.on('close', () => inbound.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    arm: (loss, marker) => {
      armed = { loss, marker: Buffer.from(marker, 'utf8') };
      struck = false;
    },
    get struck() {
      return struck;
    },
    heal: () => {
      cut = false;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
