/**
 * Admin_user_type.settings is "free client settings" (document 2), and POST admin/user/ merges the
 * keys sent into the stored ones. Every client with admin_w wrote the one object of the account:
 * a client replaced the key another client keeps there (its sync state, its configuration), and
 * every client with admin_r read them all. A key is its writer's (lib/account settings-owner.ts):
 * another client neither reads nor changes it; the seller's own token reads and changes every key.
 */
import { expect } from 'chai';
import { db } from '../../lib/db';
import { call, errorFields, newSeller, Seller } from '../support/api';
import { clientToken } from '../support/bound-client';

type Settings = Record<string, unknown>;

async function settingsOf(token: string): Promise<Settings> {
  const res = await call('admin/user/', { token });
  expect(res.status, res.text).to.equal(200);
  return (res.body.user as { settings: Settings }).settings;
}
const write = (token: string, settings: Settings) => call('admin/user/', { token, body: { user: { settings } } });

describe("settings keys are their writer's (POST admin/user/ settings)", () => {
  let seller: Seller;
  let one: string;
  let two: string;

  beforeEach(async () => {
    seller = await newSeller();
    one = await clientToken(seller, 'settings-one', seller.portalAccountId, 'admin_r admin_w');
    two = await clientToken(seller, 'settings-two', 'all', 'admin_r admin_w');
  });

  it("when a client writes a key another client wrote, then 400 names user.settings.<key> and the other client's value stays", async () => {
    expect((await write(one, { erp: { cursor: 17 } })).status).to.equal(200);
    const res = await write(two, { erp: { cursor: 0 }, own: true });
    expect(res.status, res.text).to.equal(400);
    expect(errorFields(res)).to.deep.equal(['user.settings.erp']);
    expect(await settingsOf(seller.token)).to.deep.equal({ erp: { cursor: 17 } });
    expect(await settingsOf(one)).to.deep.equal({ erp: { cursor: 17 } });
  });

  it("when a client sends another client's key with its very value, then it is refused all the same (no probing of values it cannot read)", async () => {
    expect((await write(one, { token: 's3cret' })).status).to.equal(200);
    const res = await write(two, { token: 's3cret' });
    expect(res.status, res.text).to.equal(400);
    expect(errorFields(res)).to.deep.equal(['user.settings.token']);
  });

  it("when two clients keep keys, then each reads its own and the seller's alone, and the seller reads all", async () => {
    expect((await write(seller.token, { colour: 'blue' })).status).to.equal(200);
    expect((await write(one, { erp: { cursor: 17 } })).status).to.equal(200);
    expect((await write(two, { shop: { page: 3 } })).status).to.equal(200);
    expect(await settingsOf(one)).to.deep.equal({ colour: 'blue', erp: { cursor: 17 } });
    expect(await settingsOf(two)).to.deep.equal({ colour: 'blue', shop: { page: 3 } });
    expect(await settingsOf(seller.token)).to.deep.equal({ colour: 'blue', erp: { cursor: 17 }, shop: { page: 3 } });
  });

  it("when a client writes back what it read with a key of its own added, then it is stored; a change of the seller's key is refused", async () => {
    expect((await write(seller.token, { colour: 'blue' })).status).to.equal(200);
    const back = await write(one, { ...(await settingsOf(one)), erp: { sync: true } });
    expect(back.status, back.text).to.equal(200);
    const changed = await write(one, { colour: 'red' });
    expect(changed.status, changed.text).to.equal(400);
    expect(errorFields(changed)).to.deep.equal(['user.settings.colour']);
    expect(await settingsOf(seller.token)).to.deep.equal({ colour: 'blue', erp: { sync: true } });
  });

  it("when the seller changes a client's key, then it is stored and the client still reads it as its own", async () => {
    expect((await write(one, { erp: { cursor: 17 } })).status).to.equal(200);
    expect((await write(seller.token, { erp: { cursor: 0 } })).status).to.equal(200);
    expect(await settingsOf(one)).to.deep.equal({ erp: { cursor: 0 } });
    expect((await write(one, { erp: { cursor: 1 } })).status).to.equal(200);
    expect((await write(two, { erp: { cursor: 2 } })).status).to.equal(400);
  });

  it('when settings were stored before keys had writers, then every client reads them, and the first client to change one takes it', async () => {
    await db()('account')
      .where({ id: seller.id })
      .update({ settings: JSON.stringify({ legacy: 'a', other: 'b' }) });
    expect(await settingsOf(two)).to.deep.equal({ legacy: 'a', other: 'b' });
    // Sent back unchanged, a key is not taken.
    expect((await write(one, { legacy: 'a', other: 'changed' })).status).to.equal(200);
    expect(await settingsOf(two)).to.deep.equal({ legacy: 'a' });
    expect((await write(two, { other: 'mine' })).status).to.equal(400);
    expect((await write(two, { legacy: 'mine' })).status).to.equal(200);
    expect(await settingsOf(one)).to.deep.equal({ other: 'changed' });
  });
});
