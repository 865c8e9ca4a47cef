import { EventRecord, fieldOf } from './event-record';

/**
 * Fills {field.path} placeholders with the record's fields (a list is joined with commas; an
 * object or an unknown field leaves the placeholder empty). Text only: mails go out as text/plain.
 */
export function fillTemplate(template: string, record: EventRecord): string {
  return template.replace(/\{([a-z0-9_]+(?:\.[a-z0-9_]+)*)\}/gi, (_all, path: string) => {
    const value = fieldOf(record, path);
    if (value === null || value === undefined || (typeof value === 'object' && !Array.isArray(value))) return '';
    return Array.isArray(value) ? value.filter((v) => typeof v !== 'object').join(', ') : String(value);
  });
}
