/**
 * The multi-host test's load balancer, as a process of its own (in the test's process nock would
 * intercept its outgoing requests): round-robin, each request on a new connection to the next
 * web host. Prints its port as its first line. Usage: balancer.ts <host:port>...
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const backends = process.argv.slice(2);
let next = 0;

const withoutHopByHop = (headers: http.IncomingHttpHeaders) => {
  const { connection: _connection, 'keep-alive': _keepAlive, 'transfer-encoding': _encoding, ...rest } = headers;
  return rest;
};

const server = http.createServer((req, res) => {
  const target = backends[next++ % backends.length]!;
  const upstream = http.request(`http://${target}${req.url}`, { method: req.method, headers: withoutHopByHop(req.headers), agent: false }, (answer) => {
    // Hop-by-hop: the upstream's "Connection: close" is not the client's connection's.
    res.writeHead(answer.statusCode ?? 502, withoutHopByHop(answer.headers));
    answer.pipe(res);
  });
  upstream.on('error', (err) => {
    process.stderr.write(`${target}: ${err.message}\n`);
    if (res.headersSent) res.destroy();
    else res.writeHead(502).end();
  });
  req.pipe(upstream);
});
// Longer than the client's idle keep-alive: a request never meets a socket the balancer is closing.
server.keepAliveTimeout = 65000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`${(server.address() as AddressInfo).port}\n`));
