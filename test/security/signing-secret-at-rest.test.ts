/**
 * A notification handler's signing secret is what a seller's receiver trusts: whoever holds it
 * can send the receiver events Kontor never sent (an order paid, a shipment). It was stored in
 * clear in event_handler.signing_secret, where a database dump, a backup or a replica's reader
 * finds it, while the portals' credentials beside it are sealed with CREDENTIALS_KEY. It is sealed
 * the same way now, bound to its row; the API and the deliveries see the same secret as before.
 */
import { expect } from 'chai';
import { db } from '../../lib/db';
import * as sealMigration from '../../lib/db/migrations/20261127_0300_event_handler_secret_sealed';
import * as passwordMigration from '../../lib/db/migrations/20261128_1500_event_handler_url_password_sealed';
import { eventHandlerRepository } from '../../lib/event/event-handler.repository';
import { sealSigningSecret, signingSecretOf } from '../../lib/event/signing-secret';
import { CredentialsError } from '../../lib/secret';
import { allOrdersOf } from '../../lib/access';
import { resealCredentials } from '../../bin/credentials-reseal';
import { call, newSeller, Seller } from '../support/api';

const handler = {
  event_handler: {
    type: { id: 'created' },
    section: 'order',
    action: { id: 'notification', required: { url: 'https://erp.example.com/kontor', format: 'post', target_name: 'erp' } },
  },
};

async function create(seller: Seller): Promise<{ id: number; secret: string }> {
  const res = await call('admin/event/handler/', { token: seller.token, body: handler });
  expect(res.status, res.text).to.equal(201);
  return { id: Number(res.body.event_handler_id), secret: res.body.signing_secret as string };
}

const storedOf = async (id: number) => ((await db()('event_handler').where({ id }).first('signing_secret')) as { signing_secret: string }).signing_secret;

describe('webhook signing secrets sealed at rest', () => {
  it("when a notification handler is created, then its row holds no secret in clear, and the seller's GET answers the secret given at creation", async () => {
    const seller = await newSeller();
    const { id, secret } = await create(seller);
    expect(secret).to.match(/^whsec_/);
    const stored = await storedOf(id);
    expect(stored).to.match(/^kc2\./);
    expect(stored).not.to.contain(secret.slice('whsec_'.length));
    const read = await call(`admin/event/handler/${id}/`, { token: seller.token });
    expect((read.body.event_handler as { signing_secret: string }).signing_secret).to.equal(secret);
  });

  it('when a handler is created with an Idempotency-Key, then the answer kept for replays holds no secret in clear, and a replay answers the same secret (found by the security pass)', async () => {
    const seller = await newSeller();
    const key = `handler-${Date.now()}-${Math.random()}`;
    const first = await call('admin/event/handler/', { token: seller.token, headers: { 'Idempotency-Key': key }, body: handler });
    expect(first.status, first.text).to.equal(201);
    const secret = first.body.signing_secret as string;
    expect(secret).to.match(/^whsec_/);
    const kept = (await db()('idempotency_key').where({ account_id: seller.id, key }).first('envelope')) as { envelope: Record<string, unknown> };
    expect(kept.envelope.signing_secret).to.match(/^kc2\./);
    expect(JSON.stringify(kept)).not.to.contain(secret.slice('whsec_'.length));
    const replay = await call('admin/event/handler/', { token: seller.token, headers: { 'Idempotency-Key': key }, body: handler });
    expect(replay.status, replay.text).to.equal(201);
    expect(replay.headers.get('idempotent-replayed')).to.equal('true');
    expect(replay.body).to.deep.equal(first.body);
    // A kept value moved to another seller's key does not open there: the replay leaves it out.
    const other = await newSeller();
    const otherKey = `handler-${Date.now()}-${Math.random()}`;
    const theirs = await call('admin/event/handler/', { token: other.token, headers: { 'Idempotency-Key': otherKey }, body: handler });
    expect(theirs.status, theirs.text).to.equal(201);
    await db()('idempotency_key')
      .where({ account_id: other.id, key: otherKey })
      .update({ envelope: JSON.stringify(kept.envelope) });
    const moved = await call('admin/event/handler/', { token: other.token, headers: { 'Idempotency-Key': otherKey }, body: handler });
    expect(moved.status, moved.text).to.equal(201);
    expect(moved.body.signing_secret).to.equal(undefined);
  });

  it("when a handler's url names user:password@, then the row holds the password sealed, not in the url, and the seller's GET answers the url as written (found by the security pass)", async () => {
    const seller = await newSeller();
    const url = 'https://hookuser:Hook%40Passw0rd-at-rest@erp.example.com/kontor?x=a@b';
    const withUrl = {
      event_handler: { ...handler.event_handler, action: { ...handler.event_handler.action, required: { ...handler.event_handler.action.required, url } } },
    };
    const res = await call('admin/event/handler/', { token: seller.token, body: withUrl });
    expect(res.status, res.text).to.equal(201);
    const id = Number(res.body.event_handler_id);
    const row = (await db()('event_handler').where({ id }).first()) as { required: Record<string, string>; signing_secret: string };
    expect(row.required.url).to.equal('https://hookuser@erp.example.com/kontor?x=a@b');
    expect(JSON.stringify(row)).not.to.contain('Passw0rd-at-rest');
    expect(row.signing_secret).to.match(/^kc2\./);
    const read = await call(`admin/event/handler/${id}/`, { token: seller.token });
    expect((read.body.event_handler as { action: { required: { url: string } } }).action.required.url).to.equal(url);
    expect((read.body.event_handler as { signing_secret: string }).signing_secret).to.equal(res.body.signing_secret);
    const list = await call('admin/event/handler/', { token: seller.token });
    expect((list.body.event_handler as { id: number; action: { required: { url: string } } }[]).find((h) => h.id === id)!.action.required.url).to.equal(
      'https://hookuser:***@erp.example.com/kontor?x=a@b',
    );
    // A row as the code before left it (the password in the url, the secret sealed alone): the migration moves it.
    const secret = res.body.signing_secret as string;
    await db()('event_handler')
      .where({ id })
      .update({ required: JSON.stringify({ ...row.required, url }), signing_secret: sealSigningSecret(secret, id) });
    await passwordMigration.up(db());
    const moved = (await db()('event_handler').where({ id }).first()) as { required: Record<string, string>; signing_secret: string };
    expect(moved.required.url).to.equal('https://hookuser@erp.example.com/kontor?x=a@b');
    expect(JSON.stringify(moved)).not.to.contain('Passw0rd-at-rest');
    const again = await call(`admin/event/handler/${id}/`, { token: seller.token });
    expect((again.body.event_handler as { action: { required: { url: string } } }).action.required.url).to.equal(url);
    expect(signingSecretOf((await eventHandlerRepository.get(allOrdersOf(seller.id), id))!)).to.equal(secret);
    await passwordMigration.down(db());
    expect(((await db()('event_handler').where({ id }).first()) as { required: Record<string, string> }).required.url).to.equal(url);
    await passwordMigration.up(db());
  });

  it("when a sealed secret is copied into another seller's handler, then it does not open there", async () => {
    const [victim, attacker] = [await newSeller(), await newSeller()];
    const source = await create(victim);
    const target = await create(attacker);
    await db()('event_handler')
      .where({ id: target.id })
      .update({ signing_secret: await storedOf(source.id) });
    const row = (await eventHandlerRepository.get(allOrdersOf(attacker.id), target.id))!;
    expect(() => signingSecretOf(row)).to.throw(CredentialsError);
  });

  it('when a handler was stored with its secret in clear (before), then it still signs with it, and the migration and the reseal seal it', async () => {
    const seller = await newSeller();
    const { id } = await create(seller);
    const clear = 'whsec_older-secret-in-clear-0123456789abcdefghijklmno';
    await db()('event_handler').where({ id }).update({ signing_secret: clear });
    expect(signingSecretOf((await eventHandlerRepository.get(allOrdersOf(seller.id), id))!)).to.equal(clear);
    await sealMigration.up(db());
    expect(await storedOf(id)).to.match(/^kc2\./);
    expect(signingSecretOf((await eventHandlerRepository.get(allOrdersOf(seller.id), id))!)).to.equal(clear);

    await db()('event_handler').where({ id }).update({ signing_secret: clear });
    const report = await resealCredentials();
    expect(report.resealed.event_handler).to.be.greaterThanOrEqual(1);
    expect(await storedOf(id)).to.match(/^kc2\./);
    expect(signingSecretOf((await eventHandlerRepository.get(allOrdersOf(seller.id), id))!)).to.equal(clear);
  });
});
