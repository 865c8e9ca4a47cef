import { expect } from 'chai';
import Joi from 'joi';
import { DomainError } from '../../lib/errors';
import { validate } from '../../lib/http';
import { list } from '../../lib/http/schema';

/** The error items validate() answers for a value: field and description each. */
function refusal(schema: Joi.Schema, value: unknown, prefix = ''): { field?: string; description: string }[] {
  try {
    validate(schema, value, prefix);
  } catch (err) {
    return (err as DomainError).items().map((i) => ({ field: i.field, description: i.description }));
  }
  throw new Error('validated');
}

const pair = () => Joi.object({ a: Joi.string(), b: Joi.string(), c: Joi.string() });

/**
 * A rule over an object's keys (Joi's with, without, and, nand, or, xor, oxor) has the object's
 * path, empty at the top of the body: 18774bd named or/xor's peers, the others named `body` only.
 * Each item names the keys to add or drop, in the request's paths (a bulk item's prefix included).
 */
describe('validation errors of rules over an object name their fields (lib/http/validate)', () => {
  it('when a rule over the whole body fails, then its item names the keys to add or to drop, not the body', () => {
    const cases: [Joi.Schema, unknown, string, string][] = [
      [pair().with('a', 'b'), { a: 'x' }, 'b', 'b is required when a is sent'],
      [pair().without('a', 'b'), { a: 'x', b: 'y' }, 'b', 'b cannot be sent with a'],
      [pair().and('a', 'b', 'c'), { a: 'x' }, 'b,c', '[b, c] must be sent with [a]'],
      [pair().nand('a', 'b'), { a: 'x', b: 'y' }, 'a,b', '[a, b] must not all be sent together'],
      [pair().or('a', 'b'), {}, 'a,b', 'send at least one of [a, b]'],
      [pair().xor('a', 'b'), {}, 'a,b', 'send at least one of [a, b]'],
      [pair().xor('a', 'b'), { a: 'x', b: 'y' }, 'a,b', '[a, b] exclude each other: send only one of them'],
      [pair().oxor('a', 'b', 'c'), { a: 'x', c: 'y' }, 'a,c', '[a, c] exclude each other: send only one of them'],
    ];
    for (const [schema, value, field, description] of cases) expect(refusal(schema, value), JSON.stringify(value)).to.deep.equal([{ field, description }]);
  });

  it('when such a rule fails in a nested object or a bulk item, then the fields carry its path', () => {
    const schema = Joi.object({ o: Joi.array().items(pair().with('a', 'b')) });
    expect(refusal(schema, { o: [{ b: 'y' }, { a: 'x' }] }, 'order[3]')).to.deep.equal([
      { field: 'order[3].o[1].b', description: 'order[3].o[1].b is required when order[3].o[1].a is sent' },
    ]);
  });

  it('when a rule over the whole body names no key (a minimum of keys), then its item names the body', () => {
    expect(refusal(pair().min(1), {})).to.deep.equal([{ field: 'body', description: 'body must have at least 1 key' }]);
  });
  it('when an object is sent where a list goes, then it is a list of one, as is a scalar (document 1 sends single records as objects: POST stock/category/ takes category Category_type)', () => {
    const schema = Joi.object({ line: list(Joi.object({ id: Joi.number() })), tag: list(Joi.string()) });
    expect(validate(schema, { line: { id: 1 } })).to.deep.equal({ line: [{ id: 1 }] });
    expect(validate(schema, { line: { id: '1' }, tag: 'a' })).to.deep.equal({ line: [{ id: 1 }], tag: ['a'] });
    expect(validate(schema, { tag: 'a' })).to.deep.equal({ tag: ['a'] });
  });
});
