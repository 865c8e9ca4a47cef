import { Joi, bool, datetime, readOnly, text } from '../http';
import { portalIds } from '../portals';

/** Sections a task can refer to; stock_lister also names the portal (platform) and the stock item. */
export const taskSections = ['order', 'stock', 'stock_lister', 'customer', 'bank'] as const;
export const taskPriorities = ['low', 'normal', 'high'] as const;

/** A reference id: text or an integer, stored as text; '' clears it (a task answers '' for none). */
const referenceId = () => Joi.alternatives(Joi.string().trim().max(64).allow(''), Joi.number().integer()).custom((v: string | number) => String(v));

const reference = Joi.object({
  section: Joi.string().valid(...taskSections, ''),
  id: referenceId(),
  platform: Joi.string().valid(...portalIds, ''),
  stock_id: referenceId(),
});

const fields = {
  reference,
  person_id: Joi.alternatives(Joi.number().integer().min(1).max(2147483647), Joi.string().valid('')),
  title: text(255),
  text: text(20000),
  appointment_date: Joi.alternatives(datetime(), Joi.string().valid('')),
  modified_date: readOnly(Joi.any()),
  priority: Joi.string().valid(...taskPriorities),
  is_completed: bool(),
};

/** Task_type as read (select) and as created; id and modified_date are read only. */
export const taskType = Joi.object({ id: readOnly(Joi.number().integer()), ...fields });

/** The body's task: with id it updates that task (document 1: POST task/ with an id completes it). */
export const taskInput = Joi.object({ id: Joi.number().integer().min(1).max(2147483647), ...fields });

export interface TaskInput {
  id?: number;
  reference?: { section?: string; id?: string; platform?: string; stock_id?: string };
  person_id?: number | '';
  title?: string;
  text?: string;
  appointment_date?: Date | '';
  priority?: string;
  is_completed?: boolean;
}
