import { expect } from 'chai';
import crypto from 'node:crypto';
import { accountRepository } from '../../lib/account/account.repository';
import { hashPassword } from '../../lib/account/password';
import { db } from '../../lib/db/knex';
import { backfillAccountPersons } from '../../lib/db/migrations/20261123_0700_account_person';
import { portalAccountRepository } from '../../lib/portal-account/portal-account.repository';
import { call, newSeller, query, tokenFor } from '../support/api';

type Person = { id: number; name: string };

async function persons(token: string): Promise<Person[]> {
  const res = await call('admin/person/', { token });
  expect(res.status, res.text).to.equal(200);
  return res.body.person as Person[];
}

describe('persons: every account has its own user as a person', () => {
  it('when a seller is created, then admin/person/ lists its own user, named after the login', async () => {
    const seller = await newSeller();
    const list = await persons(seller.token);
    expect(list).to.have.length(1);
    expect(list[0]!.name).to.equal(seller.login);
    expect(list[0]!.id).to.be.a('number');
  });

  it('when a new seller assigns a task to its own person, then POST task/ answers 201 and the task names that person', async () => {
    const seller = await newSeller();
    const [own] = await persons(seller.token);
    const res = await call('task/', { token: seller.token, body: { task: { title: 'Photograph the new arrivals', person_id: String(own!.id) } } });
    expect(res.status, res.text).to.equal(201);
    const read = await call(`task/?${query({ filter: { id: res.body.task_id } })}`, { token: seller.token });
    expect((read.body.task as { person_id: string }[])[0]!.person_id).to.equal(String(own!.id));
  });

  it('when an account made before persons came with accounts is migrated, then the backfill gives it its own person once', async () => {
    // An account as createSeller made it before this change: account and portal account, no person.
    const login = `old_${crypto.randomBytes(6).toString('hex')}`;
    const password = `pw-${crypto.randomBytes(8).toString('hex')}`;
    const passwordHash = await hashPassword(password);
    await db().transaction(async (trx) => {
      const id = await accountRepository.insert(trx, login, passwordHash);
      await portalAccountRepository.insert(trx, id, { name: login, is_default: true });
    });
    const token = await tokenFor(login, password);
    expect(await persons(token)).to.deep.equal([]);
    const seller = await newSeller();

    expect(await backfillAccountPersons(db())).to.be.at.least(1);
    const backfilled = await persons(token);
    expect(backfilled.map((p) => p.name)).to.deep.equal([login]);

    // Running it again adds nothing, here or to an account that had its person from the start.
    await backfillAccountPersons(db());
    expect(await persons(token)).to.deep.equal(backfilled);
    expect((await persons(seller.token)).map((p) => p.name)).to.deep.equal([seller.login]);
  });
});
