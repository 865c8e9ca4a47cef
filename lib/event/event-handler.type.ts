import { Joi, list, readOnly } from '../http';

const scalar = () => Joi.alternatives(Joi.string().allow('').max(2000), Joi.number(), Joi.boolean()).custom((v: string | number | boolean) => String(v));

/** Admin_event_handler_type as sent; what the lists allow is checked against lib/event/event-catalog.ts. */
export const eventHandlerInput = Joi.object({
  id: readOnly(Joi.any()),
  modified: readOnly(Joi.any()),
  is_active: readOnly(Joi.any()),
  signing_secret: readOnly(Joi.any()),
  pause: readOnly(Joi.any()),
  type: Joi.object({ id: Joi.string().trim().max(64).required() }).required(),
  section: Joi.string().trim().max(64),
  action: Joi.object({
    id: Joi.string().trim().max(64).required(),
    required: Joi.object().pattern(Joi.string().max(64), scalar()).default({}),
  }).required(),
  condition: list(
    Joi.object({
      field: Joi.string().trim().max(64).required(),
      operator: Joi.string().trim().max(2).default('='),
      value: scalar().required(),
    }),
  ).default([]),
});

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
