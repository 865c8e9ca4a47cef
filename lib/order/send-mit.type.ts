import { Joi, bool, calendarDate, list, text } from '../http';

/**
 * Order_send_mit_type (document 1 leaves it open). All fields optional:
 *   deliverer  carrier (free text like shipping.deliverer: DHL, UPS, Hermes ...); default the order's
 *   code[]     tracking code(s); a single string is one code; default the order's shipping.code
 *   date       shipping date YYYY-MM-DD; default today (UTC)
 *   is_mail    send the in-transit mail to customer.email; default true
 *   mail_text  a text added to the mail (up to 5000 characters)
 */
export const sendMitType = Joi.object({
  deliverer: text(64),
  code: list(
    Joi.string()
      .trim()
      .max(100)
      .pattern(/^[^\s,;]+$/)
      .messages({ 'string.pattern.base': 'must be one tracking code without spaces, commas or semicolons' })
      .example('00340434161094042557'),
  ).max(20),
  // A day that exists, as Order_type's shipping.date takes it (Date.parse let 2026-02-30 through into the order).
  date: calendarDate().invalid(''),
  is_mail: bool().default(true),
  mail_text: text(5000).default(''),
});

export interface SendMitInput {
  deliverer?: string;
  code?: string[];
  date?: string;
  is_mail: boolean;
  mail_text: string;
}
