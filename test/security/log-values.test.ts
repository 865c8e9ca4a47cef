/**
 * What a failed statement leaves in the log: the fault (SQLSTATE, constraint, SQL with
 * placeholders), not the buyer data bound to it. PostgreSQL's `detail` quotes a refused row's
 * key, and pino's error serializer wrote it out.
 */
import { expect } from 'chai';
import { db } from '../../lib/db/knex';
import { log } from '../../lib/log';
import { capturedLog } from './log-capture';

const buyer = 'erika.mustermann@example.org';

async function refused(work: () => Promise<unknown>): Promise<Error> {
  try {
    await work();
  } catch (err) {
    return err as Error;
  }
  throw new Error('the statement was not refused');
}

describe('a failed statement in the log (lib/db, lib/log)', () => {
  it('when a statement with a bound value fails, then its message names the SQL with placeholders and the logged line carries no value', async () => {
    const err = await refused(() => db().raw('SELECT ?::text AS email, 1 / 0 AS n', [buyer]));
    expect(err.message).to.equal('SELECT $1::text AS email, 1 / 0 AS n - division by zero');
    const { text, lines } = await capturedLog(async () => log.error({ err }, 'unhandled error'));
    expect(text).not.to.include(buyer);
    expect((lines[0]!.err as Record<string, unknown>).code).to.equal('22012');
  });

  it('when a line carries only an error message (a job failed, Redis unavailable), then err.message reads as that text', async () => {
    const { lines } = await capturedLog(async () => log.warn({ queue: 'mail', err: 'auction_a: connect ECONNREFUSED 127.0.0.1:3900' }, 'job failed'));
    expect(lines[0]).to.deep.include({ msg: 'job failed', err: { message: 'auction_a: connect ECONNREFUSED 127.0.0.1:3900' } });
  });

  it('when a row is refused by a unique constraint, then the logged line names the constraint, not the key it quotes', async () => {
    const err = await refused(() =>
      db().transaction(async (trx) => {
        await trx.raw('CREATE TEMP TABLE buyer_mail (email text CONSTRAINT buyer_mail_unique UNIQUE) ON COMMIT DROP');
        await trx.raw('INSERT INTO buyer_mail (email) VALUES (?)', [buyer]);
        await trx.raw('INSERT INTO buyer_mail (email) VALUES (?)', [buyer]);
      }),
    );
    expect((err as Error & { detail?: string }).detail).to.include(buyer);
    const wrapped = new Error('order not written', { cause: err });
    const { text, lines } = await capturedLog(async () => {
      log.error({ err }, 'unhandled error');
      log.error({ err: wrapped }, 'unhandled error');
    });
    expect(text).not.to.include(buyer);
    expect(lines).to.have.length(2);
    expect(lines[0]!.err).to.include({ code: '23505', constraint: 'buyer_mail_unique' });
  });
});
