/**
 * The CIA states' writes are scoped to the account that asks (SQL with the tenant in it, like
 * every repository): a state id of another seller changes nothing, whatever a caller passes.
 */
import { expect } from 'chai';
import { ciaRepository, CiaStateRow } from '../../lib/cia';
import { db } from '../../lib/db/knex';
import { newSeller, Seller } from '../support/api';
import { createItem } from '../stock/helpers';

describe('cia states: a push error is written only to the states of the account that asks', () => {
  async function stateOf(seller: Seller): Promise<CiaStateRow> {
    const stockId = await createItem(seller, { name: 'Scoped', sku: `SC-${seller.id}`, price: '5.00', quantity: 3 });
    const [row] = (await db()('cia_portal_state')
      .insert({ account_id: seller.id, stock_id: stockId, portal: 'shop_g', portal_account_id: seller.portalAccountId, desired_quantity: 3 })
      .returning('*')) as CiaStateRow[];
    return { ...row!, id: String(row!.id), desired_seq: String(row!.desired_seq) };
  }
  const errorOf = async (id: string) => ((await db()('cia_portal_state').where({ id }).first('last_error')) as { last_error: string | null }).last_error;

  it("when recordError names another account's state, then that state keeps its error; named by its own account, it takes it", async () => {
    const owner = await newSeller();
    const other = await newSeller();
    const state = await stateOf(owner);
    await ciaRepository.recordError(db(), other.id, [state], 'shop_g answered 503');
    expect(await errorOf(state.id)).to.equal(null);
    await ciaRepository.recordError(db(), owner.id, [state], 'shop_g answered 503');
    expect(await errorOf(state.id)).to.equal('shop_g answered 503');
  });
});
