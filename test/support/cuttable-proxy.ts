import net from 'node:net';

/**
 * A TCP proxy on loopback that can be cut the way a network partition cuts: bytes stop flowing
 * both ways but no socket is closed, so neither end learns of it from TCP (a refused or reset
 * connection would be noticed at once, which is not the case worth testing).
 */
export interface CuttableProxy {
  port: number;
  cut(): void;
  /** Cuts (as cut()) when a client next sends bytes containing `text`, which are not passed on: a partition at that very moment. */
  cutOnSent(text: string): void;
  /** Whether the proxy is cut now. */
  isCut(): boolean;
  /** Bytes flow again, on new connections only: those cut lost what was sent meanwhile and stay silent, as a flow a NAT or firewall forgot. */
  heal(): void;
  close(): Promise<void>;
}

export async function startCuttableProxy(targetPort: number, targetHost = '127.0.0.1', listenHost = '127.0.0.1'): Promise<CuttableProxy> {
  let cut = false;
  let cutWhen: string | undefined;
  const sockets = new Set<net.Socket>();
  const silenced = new Set<net.Socket>();
  const server = net.createServer((inbound) => {
    const outbound = net.connect(targetPort, targetHost);
    const passes = () => !cut && !silenced.has(inbound);
    for (const socket of [inbound, outbound]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        sockets.delete(socket);
        silenced.delete(socket);
      });
    }
    inbound.on('data', (chunk: Buffer) => {
      if (cutWhen !== undefined && chunk.includes(cutWhen)) {
        cutWhen = undefined;
        cut = true;
      }
      if (passes()) outbound.write(chunk);
    });
    outbound.on('data', (chunk) => {
      if (passes()) inbound.write(chunk);
    });
    inbound.on('end', () => outbound.end());
    outbound.on('end', () => inbound.end());
    // A side that goes away without its end (a killed process's reset) takes the other with it,
    // as TCP tells the peer: else Postgres would keep a killed worker's transaction, and its locks, open.
    inbound.on('close', () => outbound.destroy());
    outbound.on('close', () => inbound.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, listenHost, resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    cut: () => {
      cut = true;
    },
    cutOnSent: (text) => {
      cutWhen = text;
    },
    isCut: () => cut,
    heal: () => {
      for (const socket of sockets) silenced.add(socket);
      cut = false;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
