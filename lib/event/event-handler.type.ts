import { Joi, list, nullIsAbsent, readOnly } from '../http';

const scalar = () => Joi.alternatives(Joi.string().allow('').max(2000), Joi.number(), Joi.boolean()).custom((v: string | number | boolean) => String(v));

/**
 * action.required as a list of name/value items: document 1 and 2 call it a "name/value list",
 * and document 2's Name_value_type is one name with its value(s), so a client may send
 * [{name: 'url', value: 'https://...'}] (value a scalar or a list of one) as well as the object
 * {url: 'https://...'} that GET answers; both are stored as that object. A name given twice is a
 * 400 saying which item (which would win is not the client's to guess). Decision: README.
 */
const nameValueList = Joi.array()
  .items(
    Joi.object({
      name: Joi.string().trim().max(64).required(),
      value: Joi.alternatives(scalar(), Joi.array().items(scalar()).length(1)).required(),
    }),
  )
  .custom((items: { name: string; value: string | string[] }[], helpers) => {
    const out = new Map<string, string>();
    for (const [i, item] of items.entries()) {
      if (out.has(item.name)) return helpers.message({ custom: `{{#label}}: name ${item.name} is given twice (item [${i}])` });
      out.set(item.name, Array.isArray(item.value) ? item.value[0]! : item.value);
    }
    return Object.fromEntries(out);
  });

/** Admin_event_handler_type as sent; what the lists allow is checked against lib/event/event-catalog.ts. */
// Null is "not sent" on every field (nullIsAbsent), as in the other resource types: a client filling
// optional fields with null (no condition, no section, the default operator) met 'must be of type
// object' or 'must be a string'; a required field sent null is missing.
export const eventHandlerInput = nullIsAbsent(
  Joi.object({
    id: readOnly(Joi.any()),
    modified: readOnly(Joi.any()),
    is_active: readOnly(Joi.any()),
    signing_secret: readOnly(Joi.any()),
    pause: readOnly(Joi.any()),
    type: nullIsAbsent(Joi.object({ id: Joi.string().trim().max(64).required() })).required(),
    section: Joi.string().trim().max(64),
    action: nullIsAbsent(
      Joi.object({
        id: Joi.string().trim().max(64).required(),
        required: Joi.alternatives(Joi.object().pattern(Joi.string().max(64), scalar()), nameValueList).default({}),
      }),
    ).required(),
    condition: list(
      nullIsAbsent(
        Joi.object({
          field: Joi.string().trim().max(64).required(),
          operator: Joi.string().trim().max(2).default('='),
          value: scalar().required(),
        }),
      ),
    ).default([]),
  }),
);

export interface EventHandlerInput {
  type: { id: string };
  section?: string;
  action: { id: string; required: Record<string, string> };
  condition: { field: string; operator: string; value: string }[];
}

/** One stored condition: the record field, the operator and the value compared. */
export interface HandlerCondition {
  field: string;
  operator: string;
  value: string;
}
