import { expect } from 'chai';
import type { Job } from 'bullmq';
import { ciaProcessors } from '../../lib/cia/cia.processor';
import { db } from '../../lib/db/knex';
import { schedules } from '../../lib/queue/schedules';
import { call, newSeller } from '../support/api';

const count = async (table: string, accountId: number) => Number((await db()(table).where({ account_id: accountId }).count({ n: '*' }))[0]!.n);

describe('the scheduler removes expired secrets (expired.cleanup)', () => {
  it('when the cleanup runs, then expired tokens and Idempotency-Keys are gone, and live ones still work', async () => {
    const aged = await newSeller();
    const live = await newSeller();
    for (const seller of [aged, live]) {
      const res = await call('task/', {
        token: seller.token,
        method: 'POST',
        headers: { 'Idempotency-Key': `k-${seller.id}` },
        body: { task: { title: 'call back' } },
      });
      expect(res.status, res.text).to.equal(201);
    }
    const past = db().raw("now() - interval '1 hour'");
    await db()('access_token').where({ account_id: aged.id }).update({ expires_at: past });
    await db()('idempotency_key').where({ account_id: aged.id }).update({ expires_at: past });

    const result = (await ciaProcessors['expired.cleanup']({ name: 'expired.cleanup', data: { tick: 'test' } } as Job)) as Record<string, number>;

    expect(result.tokens).to.be.at.least(1);
    expect(result.idempotency_keys).to.be.at.least(1);
    expect(await count('access_token', aged.id)).to.equal(0);
    expect(await count('idempotency_key', aged.id)).to.equal(0);
    expect(await count('idempotency_key', live.id)).to.equal(1);
    expect((await call('task/', { token: live.token })).status).to.equal(200);
    expect((await call('task/', { token: aged.token })).status).to.equal(401);
  });

  it('when the schedules are read, then the cleanup is one of them, hourly with the outbox clean-up', () => {
    const byName = new Map(schedules().map((s) => [s.name, s.cron]));
    expect(byName.get('expired-cleanup')).to.equal(byName.get('outbox-cleanup'));
  });
});
