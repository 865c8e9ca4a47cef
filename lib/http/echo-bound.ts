import type { Payload } from './envelope';

/** The most characters of one sent text an answer repeats; a longer one is cut there and marked. */
export const echoLimit = 100;
export const cutMark = '…';

/** How many long texts of one request are looked for (the longest first), and how many share a start. */
const maxTexts = 1000;
const maxPerStart = 8;

/**
 * A text sent longer than echoLimit characters as the answer repeats it: its first echoLimit
 * characters and the mark. Characters are code points, as document 2's string(n) counts them
 * (lib/http README, "string(n) is n characters"), found by a reviewer of 29dbfbb: a cut at 100
 * UTF-16 units split an emoji (or any character beyond U+FFFF) and answered its lone first half,
 * which a client's strict UTF-8 encoder refuses, and cut 60 emoji that are 60 characters.
 */
export function cutText(text: string): string {
  if (text.length <= echoLimit) return text;
  let end = 0;
  for (let n = 0; n < echoLimit && end < text.length; n++) end += text.codePointAt(end)! > 0xffff ? 2 : 1;
  return end < text.length ? `${text.slice(0, end)}${cutMark}` : text;
}

/**
 * Cuts, in what an answer says of an error or a warning, every text the client sent that is
 * longer than echoLimit characters: the descriptions and `field`s of error[] and warning[],
 * error_description, and the same in each part of a 207 (response[]). `sent` is what the request
 * carried, decoded (query, body, path parameters, path): its keys and string values, and their
 * words (a scope or filter list repeats one word of a value), are what is looked for, so only the
 * client's own text is ever cut, never the service's words. The envelope is copied where it
 * changes; without a long text sent nothing is walked. Why here and not where messages are built:
 * lib/http README, "What an error repeats".
 */
export function boundEchoes(envelope: Payload, sent: unknown[]): Payload {
  if (!mayCarryEcho(envelope)) return envelope;
  const texts = longTexts(sent);
  if (texts.length === 0) return envelope;
  const cut = cutter(texts);
  const out: Payload = { ...envelope };
  if (Array.isArray(out.error)) out.error = out.error.map((item) => boundItem(item, cut));
  if (Array.isArray(out.warning)) out.warning = out.warning.map((item) => boundItem(item, cut));
  if (typeof out.error_description === 'string') out.error_description = cut(out.error_description);
  if (Array.isArray(out.response)) {
    out.response = out.response.map((part: unknown) => {
      if (!isRecord(part) || (!Array.isArray(part.error) && !Array.isArray(part.warning))) return part;
      const bounded: Record<string, unknown> = { ...part };
      if (Array.isArray(part.error)) bounded.error = part.error.map((item) => boundItem(item, cut));
      if (Array.isArray(part.warning)) bounded.warning = part.warning.map((item) => boundItem(item, cut));
      return bounded;
    });
  }
  return out;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function mayCarryEcho(envelope: Payload): boolean {
  return envelope.error !== undefined || envelope.warning !== undefined || Array.isArray(envelope.response);
}

function boundItem(item: unknown, cut: (text: string) => string): unknown {
  if (!isRecord(item)) return item;
  const bounded: Record<string, unknown> = { ...item };
  if (typeof item.description === 'string') bounded.description = cut(item.description);
  if (typeof item.field === 'string') bounded.field = cut(item.field);
  return bounded;
}

/**
 * The distinct keys and string values longer than echoLimit in what was sent, with their trimmed
 * and case-converted forms and their words (split at spaces and commas) that are longer too,
 * longest first.
 */
function longTexts(sent: unknown[]): string[] {
  const found = new Set<string>();
  const add = (text: string) => {
    if (text.length <= echoLimit || found.has(text)) return;
    // As Joi's conversions (trim, uppercase, lowercase) may repeat it, and its words.
    // Trimmed: a description keeps the spaces around the text it repeats.
    const trimmed = text.trim();
    const forms = [trimmed, trimmed.toUpperCase(), trimmed.toLowerCase()];
    for (const form of [...forms, ...text.split(/[\s,]+/)]) if (form.length > echoLimit) found.add(form);
  };
  // Input bounds (input-bounds.ts) refuse a request of more than 100,000 values, but only after
  // this may be asked to bound that refusal: the walk takes at most so many values.
  const stack = [...sent];
  let budget = 200_000;
  const push = (value: unknown): boolean => {
    if (budget-- <= 0) return false;
    stack.push(value);
    return true;
  };
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value === 'string') add(value);
    else if (Array.isArray(value)) {
      for (const item of value) if (!push(item)) break;
    } else if (isRecord(value)) {
      for (const key in value) {
        add(key);
        if (!push(value[key])) break;
      }
    }
  }
  return [...found].sort((a, b) => b.length - a.length).slice(0, maxTexts);
}

const base = 131;
const modulus = 1_000_000_007;

/** Polynomial hash of text[from, from + echoLimit). */
function hashOf(text: string, from: number): number {
  let h = 0;
  for (let i = from; i < from + echoLimit; i++) h = (h * base + text.charCodeAt(i)) % modulus;
  return h;
}

/** base^(echoLimit - 1) mod modulus: what the window's first character weighs. */
const leading = (() => {
  let p = 1;
  for (let i = 1; i < echoLimit; i++) p = (p * base) % modulus;
  return p;
})();

/**
 * A function that replaces, in a text, each occurrence of one of `texts` (the longest that
 * matches) by its cut form. A rolling hash over every window of echoLimit characters finds where
 * one may start, so a long description costs one pass, whatever the number of texts sent.
 */
function cutter(texts: string[]): (text: string) => string {
  const byStart = new Map<number, string[]>();
  for (const text of texts) {
    const h = hashOf(text, 0);
    const bucket = byStart.get(h) ?? [];
    if (bucket.length < maxPerStart) bucket.push(text);
    byStart.set(h, bucket);
  }
  return (text: string): string => {
    if (text.length <= echoLimit) return text;
    let out = '';
    let copied = 0;
    let i = 0;
    let h = hashOf(text, 0);
    while (i + echoLimit <= text.length) {
      const match = byStart.get(h)?.find((candidate) => text.startsWith(candidate, i));
      if (match) {
        out += text.slice(copied, i) + cutText(match);
        i += match.length;
        copied = i;
        if (i + echoLimit <= text.length) h = hashOf(text, i);
        continue;
      }
      if (i + echoLimit < text.length) {
        h = (h - ((text.charCodeAt(i) * leading) % modulus) + modulus) % modulus;
        h = (h * base + text.charCodeAt(i + echoLimit)) % modulus;
      }
      i++;
    }
    return copied === 0 ? text : out + text.slice(copied);
  };
}
