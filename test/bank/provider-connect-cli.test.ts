/** `kontor payment-provider connect`: the client secret from standard input, or (older scripts) the flag. */
import { expect } from 'chai';
import { db } from '../../lib/db/knex';
import { newSeller } from '../support/api';
import { kontor, kontorWithInput } from '../support/cli';

describe('kontor payment-provider connect', () => {
  const args = (login: string, ...more: string[]) => ['payment-provider', 'connect', '--login', login, '--name', 'PayPal', '--client-id', 'app-1', ...more];

  it('when the secret comes on standard input, or as --client-secret, then the account is connected; both at once exit 1 and store nothing', async () => {
    const s = await newSeller();
    const piped = await kontorWithInput('piped-secret\n', ...args(s.login, '--client-secret-stdin'));
    expect(piped.code, piped.err).to.equal(0);
    const flagged = await kontor(...args(s.login, '--client-secret', 'flag-secret'));
    expect(flagged.code, flagged.err).to.equal(0);
    const both = await kontorWithInput('x\n', ...args(s.login, '--client-secret-stdin', '--client-secret', 'y'));
    expect(both.code).to.equal(1);
    expect(both.err).to.include('--client-secret-stdin or --client-secret');
    const none = await kontor(...args(s.login));
    expect(none.code).to.equal(1);
    expect(await db()('payment_provider_account').where({ account_id: s.id })).to.have.length(2);
  });
});
