import type Joi from 'joi';

/*
 * Joi validates an object by visiting every key its type declares, sent or not, each with a path,
 * a state and a helpers object of its own. A stock item declares 60 fields, its auction_a lister
 * 45, an order 40, and a client sends a dozen: in stock/list/ the absent fields were most of the
 * 30 µs Joi spent on an item. An absent field that is optional, has no default and no condition
 * validates to nothing, so a type cut to the fields a value holds gives the same value and the
 * same errors, in the same order (the kept children are the same schemas, in the same order).
 * Cut types are kept per shape of input (its keys at each level), so the like items of a list
 * share one, built once.
 */

/** The keys a value holds at each level where its type can be cut: a key's shape, or null where its type is kept whole. */
type Shape = Map<string, Shape | null>;

/** The parts of Joi's extension interface ($_terms) a cut reads and writes. */
interface Child {
  key: string;
  schema: Joi.Schema;
}
interface ObjectTerms {
  keys: Child[] | null;
  renames: unknown[] | null;
  whens: unknown[] | null;
}
interface ArrayTerms {
  items: Joi.Schema[];
  ordered: Joi.Schema[];
  whens: unknown[] | null;
}

const childrenOf = new WeakMap<Joi.Schema, Map<string, Joi.Schema>>();
const cutsOf = new WeakMap<Joi.Schema, Map<string, Joi.Schema>>();
/** Cut types kept per type; past this many shapes (a client varying its keys at will) they are built anew. */
const maxCutsPerType = 256;

/** The type of an object whose keys may be cut: declared keys, no renames or conditions (they could bring absent keys to life). */
function cuttableObject(schema: Joi.Schema): Map<string, Joi.Schema> | undefined {
  if (schema.type !== 'object') return undefined;
  let children = childrenOf.get(schema);
  if (!children) {
    const terms = schema.$_terms as ObjectTerms;
    children = new Map(terms.keys && !terms.renames?.length && !terms.whens?.length ? terms.keys.map((c) => [c.key, c.schema]) : []);
    childrenOf.set(schema, children);
  }
  return children.size ? children : undefined;
}

/** The item type of a list of one item type (lib/http/schema list()), whose items may be cut. */
function cuttableItem(schema: Joi.Schema): Joi.Schema | undefined {
  if (schema.type !== 'array') return undefined;
  const terms = schema.$_terms as ArrayTerms;
  const item = terms.items.length === 1 && terms.ordered.length === 0 && !terms.whens?.length ? terms.items[0] : undefined;
  return item && cuttable(item) ? item : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A type whose keys or items may be cut. */
const cuttable = (schema: Joi.Schema): boolean => cuttableObject(schema) !== undefined || cuttableItem(schema) !== undefined;

/** Adds the keys value holds where schema can be cut to shape; false where it cannot. */
function addShape(schema: Joi.Schema, value: unknown, shape: Shape): boolean {
  const children = cuttableObject(schema);
  if (children) {
    if (!isRecord(value)) return false;
    for (const key of Object.keys(value)) {
      const child = children.get(key);
      if (!child) continue; // not declared: Joi refuses it whatever the cut
      let below = shape.get(key);
      if (below === undefined) shape.set(key, (below = cuttable(child) ? new Map() : null));
      if (below && !addShape(child, value[key], below)) shape.set(key, null);
    }
    return true;
  }
  const item = cuttableItem(schema);
  if (!item) return false;
  // A list takes a single item as a list of one (single()).
  for (const element of Array.isArray(value) ? value : [value]) if (!addShape(item, element, shape)) return false;
  return true;
}

function shapeKey(shape: Shape): string {
  let key = '';
  for (const [name, below] of shape) key += below ? `${name}{${shapeKey(below)}}` : `${name},`;
  return key;
}

/** An absent key Joi must still visit: required, defaulted or conditional. */
function visitedWhenAbsent(schema: Joi.Schema): boolean {
  const flags = schema._flags as { presence?: string; default?: unknown };
  return flags.presence === 'required' || flags.default !== undefined || Boolean((schema.$_terms as { whens?: unknown[] | null }).whens?.length);
}

function cut(schema: Joi.Schema, shape: Shape): Joi.Schema {
  // clone() is Joi's (every method that changes a type starts with it); its typings leave it out.
  const copy = (schema as Joi.Schema & { clone(): Joi.Schema }).clone();
  if (schema.type === 'array') {
    (copy.$_terms as ArrayTerms).items = [cut((schema.$_terms as ArrayTerms).items[0]!, shape)];
  } else {
    const keys = (schema.$_terms as ObjectTerms).keys!;
    (copy.$_terms as ObjectTerms).keys = keys
      .filter((c) => shape.has(c.key) || visitedWhenAbsent(c.schema))
      .map((c) => {
        const below = shape.get(c.key);
        return below ? { key: c.key, schema: cut(c.schema, below) } : c;
      });
  }
  // Joi's own way after changing terms: registers the children again and rebuilds derived terms.
  return copy.$_mutateRebuild();
}

/** schema, cut to the fields value holds (the same validation, fewer visits); schema itself where it cannot be cut. */
export function cutToSent(schema: Joi.Schema, value: unknown): Joi.Schema {
  const shape: Shape = new Map();
  if (!addShape(schema, value, shape)) return schema;
  const key = shapeKey(shape);
  let cuts = cutsOf.get(schema);
  if (!cuts) cutsOf.set(schema, (cuts = new Map()));
  let found = cuts.get(key);
  if (!found) {
    if (cuts.size >= maxCutsPerType) cuts.clear();
    cuts.set(key, (found = cut(schema, shape)));
  }
  return found;
}
