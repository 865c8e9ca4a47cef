/**
 * The bare servers of the read-path bench in a process of their own (bench/read-path-bare.ts
 * forks this): argv database URL, account id, connections; sends the two base URLs to the parent
 * and serves until SIGTERM or the parent goes.
 */
import './development-mode';
import { startBare } from './read-path-bare';

async function main(): Promise<void> {
  const [databaseUrl, accountId, connections] = process.argv.slice(2);
  const bare = await startBare(databaseUrl!, Number(accountId), Number(connections));
  const stop = () => {
    void bare.close().then(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('disconnect', stop);
  process.send!({ order: bare.order.toString(), currency: bare.currency.toString() });
}

void main();
