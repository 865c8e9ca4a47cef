import { expect } from 'chai';
import Joi from 'joi';
import { cutToSent } from '../../lib/http/sent-fields';
import { orderCreateType, orderListItemType } from '../../lib/order/order.type';
import { stockListItemType } from '../../lib/stock/stock.type';

/** validate()'s options (lib/http/validate.ts). */
const options = (portalAccounts: unknown[]) => ({ abortEarly: false, convert: true, errors: { wrap: { label: false as const } }, context: { portalAccounts } });

/** What a client sees of one validation: the converted value, every error and every portal account it names. */
function outcome(schema: Joi.Schema, input: unknown) {
  const mentioned: unknown[] = [];
  const { value, error } = schema.validate(structuredClone(input), options(mentioned));
  return { value, errors: error?.details.map((d) => ({ message: d.message, path: d.path, type: d.type })) ?? [], mentioned };
}

/** The input validated against its type cut to the fields sent gives what the whole type gives. */
function expectSameOutcome(schema: Joi.Schema, input: unknown): ReturnType<typeof outcome> {
  const whole = outcome(schema, input);
  expect(outcome(cutToSent(schema, input), input)).to.deep.equal(whole);
  return whole;
}

const listItem = {
  name: 'Shirt',
  sku: 'S-1',
  price: '19.90',
  quantity: '12',
  market_d: { is_active: true, sku: 'AZ-1', price: '21.00' },
  auction_a: [{ lister_id: 0, name: 'Offer', price: '19.90', duration: '7', type_id: '9' }],
};

describe('validation against a type cut to the fields sent (lib/http/sent-fields)', () => {
  it('when a stock item is valid, then the cut gives the same converted value', () => {
    const { errors, value } = expectSameOutcome(stockListItemType(), listItem);
    expect(errors).to.deep.equal([]);
    expect((value as { quantity: number }).quantity).to.equal(12);
  });

  it('when fields are wrong at every level, then the same errors come in the same order', () => {
    const { errors } = expectSameOutcome(stockListItemType(), {
      ...listItem,
      price: 'cheap',
      colour: 'red',
      market_d: { is_active: 'perhaps', sku: 'AZ-1', shelf: 3 },
      auction_a: [
        { lister_id: 0, price: 'x' },
        { name: 'y'.repeat(81), duration: 'forever', picture: { url: 5 } },
      ],
      variation: { sub: [{ quantity: 1 }] },
    });
    expect(errors.map((e) => e.path.join('.'))).to.include.members([
      'price',
      'colour',
      'market_d.is_active',
      'market_d.shelf',
      'auction_a.0.price',
      'auction_a.1.name',
    ]);
  });

  it('when a list field is sent as a single object, or items of a list send different fields, then the outcome is the same', () => {
    expectSameOutcome(stockListItemType(), { ...listItem, auction_a: { lister_id: 0, name: 'Single' } });
    expectSameOutcome(stockListItemType(), { ...listItem, auction_a: [{ name: 'a' }, { price: '1.00', shipping: { service: [] } }, 'not an object'] });
    expectSameOutcome(stockListItemType(), { ...listItem, market_d: 'not an object', auction_a: null });
  });

  it('when a required field is absent, then it is still reported (it is never cut)', () => {
    const { errors } = expectSameOutcome(orderCreateType(), { payment_method_id: 'COD', line: [{ name: 'x' }] });
    expect(errors.map((e) => e.path.join('.'))).to.include('customer');
    const nested = expectSameOutcome(orderCreateType(), { customer: { username: 'u' }, line: [{ quantity: 1 }] });
    expect(nested.errors.map((e) => e.path.join('.'))).to.include('customer.email');
    expectSameOutcome(orderListItemType(), { id: ' 5 ', line: [{ sku: 'S-1', quantity: 2 }, { price: 'x' }] });
  });

  it('when a type has defaults, conditions, dependencies and renames, then they hold as on the whole type', () => {
    const type = Joi.object({
      kind: Joi.string().default('plain'),
      size: Joi.number().when('kind', { is: 'sized', then: Joi.required() }),
      from: Joi.number(),
      to: Joi.number(),
      parts: Joi.array()
        .items(Joi.object({ id: Joi.number().required(), note: Joi.string(), tag: Joi.string().default('none') }))
        .single(),
      inner: Joi.object({ a: Joi.string(), b: Joi.string() }).rename('old_a', 'a'),
    }).with('from', 'to');
    for (const input of [
      {},
      { kind: 'sized' },
      { from: 1 },
      { parts: { note: 'n' } },
      { parts: [{ id: 1 }, { note: 'm' }] },
      { inner: { old_a: 'x' } },
      { extra: 1 },
    ]) {
      expectSameOutcome(type, input);
    }
    expect(outcome(cutToSent(type, {}), {}).value).to.deep.equal({ kind: 'plain' });
    expect(outcome(cutToSent(type, { parts: [{ id: 1 }] }), { parts: [{ id: 1 }] }).value).to.deep.equal({ kind: 'plain', parts: [{ id: 1, tag: 'none' }] });
  });

  it('when items of like shape come, then they share one cut type, which holds only the fields sent and the ones Joi must see', () => {
    const first = cutToSent(stockListItemType(), listItem);
    expect(cutToSent(stockListItemType(), { ...listItem, name: 'Other', sku: 'S-2' })).to.equal(first);
    expect(first).not.to.equal(stockListItemType());
    const keys = Object.keys((first.describe() as { keys: Record<string, unknown> }).keys);
    expect(keys).to.have.members(Object.keys(listItem));
    expect(cutToSent(stockListItemType(), { ...listItem, barcode: '1' })).not.to.equal(first);
  });
});
