import { XMLBuilder, XMLParser } from 'fast-xml-parser';
import { invalidInput, tooLarge } from '../errors';
import { inputBounds } from './input-bounds';
import { parseInWorker } from './xml-worker';
import { markFromXml } from './xml-origin';
import { xmlNameOf } from './xml-name';

/** The prefix fast-xml-parser gives attributes; they are read for xsi:nil alone (readTree). */
const attribute = '@_';

const parserOptions = {
  ignoreAttributes: false,
  attributeNamePrefix: attribute,
  // Values stay strings ("0012345678905", "1e5"); the endpoint's schema converts by type.
  parseTagValue: false,
  // The predefined entities and character references are ordinary XML text and decoded, once;
  // htmlEntities is what turns on &#228; and &#x20AC; (it also reads HTML's named ones, which a
  // client may send by mistake). A DOCTYPE is refused before parsing, so no entity is declared.
  processEntities: true,
  htmlEntities: true,
  // Untrimmed, so that the text around a CDATA section keeps its spaces; the whitespace between
  // elements is dropped below.
  trimValues: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  // A name is read by its local part (Namespaces in XML 1.0, 4): `<k:request xmlns:k="...">` is
  // the <request> a serializer writes with a prefix; a default namespace needed nothing.
  removeNSPrefix: true,
};
const parser = new XMLParser(parserOptions);

/** Below this size a body is parsed in place (a few ms); above it, in the worker thread. */
const inPlaceBytes = 64 * 1024;

const builder = new XMLBuilder({ format: false, suppressEmptyNode: true, processEntities: true });

/**
 * Parses an XML request body under its <request> root. DOCTYPE and entity declarations are
 * refused: entity expansion is the classic XML denial of service. The elements are counted
 * first and large bodies parsed in a worker thread, so that no body holds the event loop long.
 */
export async function parseXmlRequest(text: string): Promise<Record<string, unknown>> {
  const body = await parseXmlFields(text);
  markFromXml(body);
  return body;
}

async function parseXmlFields(text: string): Promise<Record<string, unknown>> {
  refuseDeclarations(text);
  refuseIllegalCharacters(text);
  refuseIllegalCharacterReferences(text);
  if (countTags(text) > 2 * inputBounds.xmlElements) {
    throw tooLarge(`the XML body holds more than ${inputBounds.xmlElements} elements`);
  }
  let parsed: unknown;
  try {
    parsed = text.length <= inPlaceBytes ? parser.parse(text, true) : await parseInWorker(text, parserOptions);
  } catch (err) {
    throw invalidInput('malformed_xml', `the XML body is malformed: ${(err as Error).message.split('\n')[0]}`, 'body');
  }
  const root = readTree((parsed as Record<string, unknown>).request);
  if (root === undefined) throw invalidInput('malformed_xml', 'the XML body must have a <request> root element', 'body');
  if (typeof root === 'string' && root.trim() === '') return {};
  if (typeof root !== 'object' || root === null || Array.isArray(root)) {
    throw invalidInput('malformed_xml', 'the <request> element must contain fields', 'body');
  }
  return root as Record<string, unknown>;
}

/**
 * A DOCTYPE or an entity declaration is refused, as the parser would read it: entity expansion is
 * the classic XML denial of service. The text of a CDATA section, a comment or a processing
 * instruction is no markup, so a seller's HTML description `<![CDATA[<!DOCTYPE html>...]]>` is
 * text and taken (it was refused, found 2026-11-30). Any other `<!DOCTYPE` or `<!ENTITY`, in the
 * prolog or anywhere else (fast-xml-parser reads a DOCTYPE wherever it meets one), and one inside
 * a tag (an attribute value cannot hold `<` at all), is refused: a section opened inside a tag
 * does not hide what follows (`<request a="<![CDATA["><!DOCTYPE ...`). One pass; a section's end is
 * found with indexOf.
 */
const declaration = /^<!(?:DOCTYPE|ENTITY)/i;
const sections: [string, string][] = [
  ['<![CDATA[', ']]>'],
  ['<!--', '-->'],
  ['<?', '?>'],
];

function refuseDeclarations(text: string): void {
  if (!/<!(?:DOCTYPE|ENTITY)/i.test(text)) return;
  const refuse = () => invalidInput('xml_doctype_refused', 'XML with a DOCTYPE or entity declarations is not accepted', 'body');
  let inTag = false;
  let quote = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '<') {
      if (declaration.test(text.slice(i, i + 9))) throw refuse();
      if (inTag) continue;
      const section = sections.find(([open]) => text.startsWith(open, i));
      if (section) {
        const end = text.indexOf(section[1], i + section[0].length);
        // An unclosed section runs to the end of the text, for the parser as here (it refuses it).
        if (end === -1) return;
        i = end + section[1].length - 1;
        continue;
      }
      inTag = true;
      quote = '';
    } else if (inTag) {
      if (quote) {
        if (c === quote) quote = '';
      } else if (c === '"' || c === "'") quote = c;
      else if (c === '>') inTag = false;
    }
  }
}

/**
 * A character reference must name a character of XML 1.0's Char production (#x9, #xA, #xD,
 * #x20-#xD7FF, #xE000-#xFFFD, #x10000-#x10FFFF; XML 1.0 section 4.1, WFC: Legal Character);
 * any other is a fatal error, as xmllint answers it. fast-xml-parser instead dropped `&#0;`,
 * `&#x1;` and `&#xD800;` without a word and kept `&#99999999999;` as text, so
 * `<name>a&#0;b</name>` was stored as "ab" with a 201, while the same NUL sent raw, or in JSON,
 * is a 400 naming the field (found 2026-11-28). Such a body is a 400 malformed_xml naming the
 * reference and the element it stood in, and nothing is stored. CDATA sections and comments hold
 * no references (their `&#0;` is text) and are passed over.
 */
const referenceOrPassed = /<!\[CDATA\[|<!--|&#(?:x([0-9A-Fa-f]+)|([0-9]+));/g;
const passedUntil: Record<string, string> = { '<![CDATA[': ']]>', '<!--': '-->' };

const isXmlChar = (c: number) =>
  c === 0x9 || c === 0xa || c === 0xd || (c >= 0x20 && c <= 0xd7ff) || (c >= 0xe000 && c <= 0xfffd) || (c >= 0x10000 && c <= 0x10ffff);

/** One pass over the text: a section's end is found with indexOf, so no body costs more than linear time. */
function refuseIllegalCharacterReferences(text: string): void {
  if (!text.includes('&#')) return;
  const pattern = new RegExp(referenceOrPassed.source, 'g');
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    const [reference, hex, decimal] = match;
    const until = passedUntil[reference];
    if (until !== undefined) {
      const end = text.indexOf(until, pattern.lastIndex);
      // An unclosed section: the parser refuses the body.
      if (end === -1) return;
      pattern.lastIndex = end + until.length;
      continue;
    }
    // More than 8 digits is beyond U+10FFFF whatever they are (parseInt of a long run is imprecise).
    const digits = (hex ?? decimal ?? '').replace(/^0+/, '');
    const code = digits.length > 8 ? Infinity : Number.parseInt(digits || '0', hex === undefined ? 10 : 16);
    if (isXmlChar(code)) continue;
    const open = text.lastIndexOf('<', match.index);
    const element = open === -1 ? undefined : /^<([A-Za-z_][\w.:-]*)[^<>]*>/.exec(text.slice(open, match.index))?.[1];
    const shown = reference.length > 20 ? `${reference.slice(0, 17)}...` : reference;
    throw invalidInput(
      'malformed_xml',
      `the XML body is malformed: ${shown}${element ? ` in <${element}>` : ''} names no character XML 1.0 allows (its Char production)`,
      'body',
    );
  }
}

/**
 * The same characters sent raw (a C0 control but tab, LF and CR; U+FFFE, U+FFFF; an unpaired
 * surrogate) make the body no XML at all, anywhere in it, CDATA included (XML 1.0 section 2.2, a
 * fatal error as xmllint answers it). fast-xml-parser kept them, so `<name>a\u0001b</name>` was
 * stored with a 201 while `&#x1;` in the same place was a 400 (left alone since 2026-11-28). Such
 * a body is now the same 400 malformed_xml, naming the character and the element it stood in. A
 * JSON body may still carry them (notXmlText below answers them as U+FFFD in XML).
 */
function refuseIllegalCharacters(text: string): void {
  const at = text.search(notXmlText);
  if (at === -1) return;
  const code = text.codePointAt(at)!.toString(16).toUpperCase().padStart(4, '0');
  // The last start tag before it, also when a CDATA section lies between (looked for in the 2 KB before).
  const element = [...text.slice(Math.max(0, at - 2048), at).matchAll(/<([A-Za-z_][\w.:-]*)[^<>]*>/g)].pop()?.[1];
  throw invalidInput(
    'malformed_xml',
    `the XML body is malformed: the character U+${code}${element ? ` in <${element}>` : ''} is not one XML 1.0 allows (its Char production)`,
    'body',
  );
}

/** Start and end tags: a cheap upper bound of twice the elements. */
function countTags(text: string): number {
  let count = 0;
  for (let i = text.indexOf('<'); i !== -1; i = text.indexOf('<', i + 1)) count++;
  return count;
}

/**
 * The parsed tree as fields: the whitespace text between elements (indentation), which untrimmed
 * parsing keeps, is dropped, and so are attributes, but for xsi:nil (XML Schema Instance 2.6.2):
 * an element with `xsi:nil="true"` is null, as JSON's null is. A client generated from an XSD
 * (JAXB's or .NET's nillable elements) writes a field without value so; read as the empty element
 * it is, it was '' and cleared a text that JSON's null leaves as it is. The prefix is not checked
 * against the XSI namespace (prefixes are removed before this, as for element names).
 */
function readTree(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(readTree);
  if (node === null || typeof node !== 'object') return node;
  const record = node as Record<string, unknown>;
  let attributes = 0;
  let nil = false;
  for (const key of Object.keys(record)) {
    if (!key.startsWith(attribute)) continue;
    attributes++;
    if (key === `${attribute}nil`) nil = record[key] === 'true' || record[key] === '1';
    delete record[key];
  }
  if (nil) return null;
  // An element that had attributes besides its text is that text; with nothing else, empty.
  const keys = Object.keys(record);
  if (attributes > 0 && keys.length === 0) return '';
  if (attributes > 0 && keys.length === 1 && keys[0] === '#text') return record['#text'];
  if (typeof record['#text'] === 'string' && record['#text'].trim() === '') delete record['#text'];
  for (const key of Object.keys(record)) record[key] = readTree(record[key]);
  return record;
}

/** Serialises an envelope under a <response> root; lists become repeated elements. */
export function buildXmlResponse(envelope: Record<string, unknown>, charset: string): string {
  return `<?xml version="1.0" encoding="${charset.toUpperCase()}"?>\n${builder.build({ response: xmlNames(envelope) })}`;
}

/** A request body as XML under its <request> root, indented (the docs page's XML example of a JSON one). */
export function buildXmlRequest(body: Record<string, unknown>): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n${indentedBuilder.build({ request: xmlNames(body) })}`;
}
const indentedBuilder = new XMLBuilder({ format: true, indentBy: '  ', suppressEmptyNode: true, processEntities: true });

/**
 * Characters XML 1.0 cannot carry, not even as a character reference (its Char production: C0
 * controls but tab, LF and CR; U+FFFE, U+FFFF; unpaired surrogates). A JSON client may store
 * them (lib/http refuses only NUL and lone surrogates, which PostgreSQL cannot hold), and one
 * `\u0001` in an order's name made every XML answer holding it unparseable for every client
 * reading XML (found 2026-11-28). They are answered as U+FFFD, the replacement character
 * (decision): the answer stays XML and shows that a character stood there; JSON answers keep it.
 */
// eslint-disable-next-line no-control-regex -- matching these characters is the point
const notXmlText = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const notXmlTextAll = new RegExp(notXmlText.source, 'g');

/**
 * Texts with the characters XML cannot carry replaced (above), keys written as element names
 * (`xml-name.ts` xmlNameOf: a key that is no XML name, OPTIONS's `name?` or a settings key stored
 * before they were refused, under its `_xHHHH_` escape, which no other key has; the empty key left
 * out), and lists in lists as <item>s, so that the answer stays well formed (issue 36's contract
 * test found `<name?>` and `<0>`; a reviewer `<>` and `a b` lost to `a_b`, 2026-11-30). Envelopes
 * whose keys are all names and that hold no list of lists, nearly every one, are not copied.
 */
function xmlNames(value: unknown): unknown {
  if (typeof value === 'string') return notXmlText.test(value) ? value.replace(notXmlTextAll, '\uFFFD') : value;
  if (Array.isArray(value)) {
    // A list in a list (an order's add_field[][]) has no repeated-element form: each inner list
    // becomes an element of <item>s (the builder wrote <0>, no XML name).
    const items = value.map((item: unknown) => (Array.isArray(item) ? { item: xmlNames(item) } : xmlNames(item)));
    return items.every((item, i) => item === value[i]) ? value : items;
  }
  if (value === null || typeof value !== 'object' || Buffer.isBuffer(value) || value instanceof Date) return value;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  // The entries from the first key that changes on; the ones before it are taken as they are.
  let entries: [string, unknown][] | undefined;
  keys.forEach((key, i) => {
    const name = xmlNameOf(key);
    const child = record[key];
    const converted = xmlNames(child);
    if (!entries && name === key && converted === child) return;
    entries ??= keys.slice(0, i).map((before) => [before, record[before]]);
    // A name is its key's alone (the escape is injective), so no entry replaces another.
    if (name !== undefined) entries.push([name, converted]);
  });
  // fromEntries defines each name as an own property, `__proto__` too.
  return entries ? Object.fromEntries(entries) : record;
}
