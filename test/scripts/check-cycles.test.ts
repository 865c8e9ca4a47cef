import { expect } from 'chai';
import { entryOf, entryViolations } from '../../scripts/check-cycles';

describe('lint: each domain folder entered only through its index.ts (scripts/check-cycles.ts)', () => {
  it('when a file of another domain or of server/ imports a file of a folder past its index.ts, then each import is named with the entry to use', () => {
    const graph = {
      'lib/bank/bank.service.ts': ['lib/order/order.repository.ts', 'lib/bank/bank.repository.ts'],
      'server/routes/stock.ts': ['lib/stock/stock.service.ts', 'lib/http/search/index.ts'],
    };
    expect(entryViolations(graph)).to.deep.equal([
      'deep import: lib/bank/bank.service.ts imports lib/order/order.repository.ts; import lib/order (lib/order/index.ts) instead, exporting the name there if it is not yet',
      'deep import: server/routes/stock.ts imports lib/stock/stock.service.ts; import lib/stock (lib/stock/index.ts) instead, exporting the name there if it is not yet',
      'deep import: server/routes/stock.ts imports lib/http/search/index.ts; import lib/http (lib/http/index.ts) instead, exporting the name there if it is not yet',
    ]);
  });

  it('when a file of a folder imports its own index.ts, then it is named: the entry could close a cycle at load time', () => {
    expect(entryViolations({ 'lib/bank/bank.cli.ts': ['lib/bank/index.ts'] })).to.deep.equal([
      'own entry: lib/bank/bank.cli.ts imports lib/bank/index.ts; import the file of lib/bank itself (an entry imported from inside can close a cycle at load time)',
    ]);
  });

  it('when imports go through entries, stay inside a folder, reach single-file domains or packages, then nothing is reported', () => {
    const graph = {
      'lib/bank/bank.service.ts': ['lib/order/index.ts', 'lib/bank/bank.repository.ts', 'lib/log.ts', 'lib/bank/provider/camt.ts'],
      'lib/order/index.ts': ['lib/order/order.repository.ts', 'lib/order/order.service.ts'],
      'server/routes/stock.ts': ['lib/stock/index.ts', 'lib/clock.ts', 'server/framework/mount.ts'],
      'workers/run.ts': ['lib/queue/index.ts', 'config/index.ts'],
    };
    expect(entryViolations(graph)).to.deep.equal([]);
    expect(entryOf('lib/order/order.service.ts')).to.equal('lib/order/index.ts');
    expect(entryOf('lib/log.ts')).to.equal(undefined);
    expect(entryOf('server/app.ts')).to.equal(undefined);
  });
});
