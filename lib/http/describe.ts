import type Joi from 'joi';

/** The parts of Joi's describe() output the framework reads. */
export interface Description {
  type?: string;
  keys?: Record<string, Description>;
  items?: Description[];
  metas?: { access?: string; nullIsAbsent?: boolean }[];
  flags?: { presence?: string; single?: boolean };
  /** Values taken besides the type's own (Joi's allow(): '' for a text an empty string clears). */
  allow?: unknown[];
}

/** Joi's describe() of a large type costs milliseconds; schemas are immutable, so it is kept per schema. */
const descriptions = new WeakMap<Joi.Schema, Description>();

export function describe(schema: Joi.Schema): Description {
  let description = descriptions.get(schema);
  if (!description) {
    description = schema.describe() as Description;
    descriptions.set(schema, description);
  }
  return description;
}
