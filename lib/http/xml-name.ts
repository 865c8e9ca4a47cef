/**
 * Keys as XML element names, both ways of document 1's "XML is also accepted". A key of a JSON
 * object is any text; an element name is not: `<>`, `<a b>` and `<1a>` are not XML, and a colon
 * is a namespace prefix (our reader takes `<a:b>` as `<b>`). The XML answer wrote an empty key as
 * `<>` and renamed the others to a form that another key could hold (`a b` and `a:b` both became
 * `a_b`, the later one replacing the others): one odd settings key made admin/user/ unreadable
 * for every XML client of the account (found 2026-11-30).
 *
 * - `writesAsItself`: a key that is an XML element name and reads back as itself. Free-form
 *   fields a client fills (user settings) take only such keys (lib/account).
 * - `xmlNameOf`: the element name the answer writes for a key: the key itself when it writes as
 *   itself, else its escape, each character that cannot stand where it is as `_xHHHH_` (its code
 *   point in hex, 8 digits beyond U+FFFF), the convention of SQL/XML (ISO/IEC 9075-14) and .NET's
 *   XmlConvert.EncodeLocalName, so a client may decode it. An underscore that would begin such a
 *   sequence in the key is escaped itself (`_x005F_`), so no two keys share a name. The empty key
 *   has no name and is left out of XML (its value is in the JSON answer).
 */

/**
 * XML 1.0 (fifth edition) NameStartChar and NameChar without the colon (Namespaces in XML's
 * NCName), within the Basic Multilingual Plane: fast-xml-parser, which reads our XML bodies,
 * takes no name character beyond it (its `nameStartChar`), so a key holding one could be answered
 * but not sent back.
 */
const nameStart =
  'A-Za-z_\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u02FF\\u0370-\\u037D\\u037F-\\u1FFF\\u200C-\\u200D\\u2070-\\u218F\\u2C00-\\u2FEF\\u3001-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFFD';
const nameRest = `${nameStart}\\-.0-9\\u00B7\\u0300-\\u036F\\u203F-\\u2040`;
// The combining marks (U+0300-U+036F) are a range of NameChar here, not a character they combine with.
// eslint-disable-next-line no-misleading-character-class -- a range of name characters, see above
const ncName = new RegExp(`^[${nameStart}][${nameRest}]*$`);
const startCharacter = new RegExp(`^[${nameStart}]$`);
// eslint-disable-next-line no-misleading-character-class -- as ncName
const restCharacter = new RegExp(`^[${nameRest}]$`);

/** An underscore that begins what reads as an escape: `_x` and 4 or 8 hex digits and `_`. */
const escapeShape = /_[xX](?:[0-9A-Fa-f]{4}|[0-9A-Fa-f]{8})_/;
const escapeShapeAt = /^_[xX](?:[0-9A-Fa-f]{4}|[0-9A-Fa-f]{8})_/;

/**
 * `xmlns` is an NCName, but the reader takes an element of that name for a namespace declaration
 * and drops its name (fast-xml-parser's removeNSPrefix answers ''), so it would not read back.
 */
const readBackOtherwise = new Set(['xmlns']);

/** The key is an XML element name that the answer writes as it is and a request reads as it is. */
export function writesAsItself(key: string): boolean {
  return ncName.test(key) && !escapeShape.test(key) && !readBackOtherwise.has(key);
}

const escaped = (character: string) => {
  const code = character.codePointAt(0)!;
  return `_x${code
    .toString(16)
    .toUpperCase()
    .padStart(code > 0xffff ? 8 : 4, '0')}_`;
};

/** The element name the XML answer writes for a key; undefined for the empty key (left out). */
export function xmlNameOf(key: string): string | undefined {
  if (writesAsItself(key)) return key;
  if (key === '') return undefined;
  let name = '';
  let index = 0;
  for (const character of key) {
    const first = index === 0;
    if (character === '_' && escapeShapeAt.test(key.slice(index))) name += escaped('_');
    else if (first && readBackOtherwise.has(key)) name += escaped(character);
    else name += (first ? startCharacter : restCharacter).test(character) ? character : escaped(character);
    index += character.length;
  }
  return name;
}

/** Why a key is refused, in a client's words (lib/account names the field). */
export function notWrittenAsItself(key: string): string {
  if (key === '') return 'is the empty key: no XML element can name it';
  if (readBackOtherwise.has(key)) return 'is xmlns, which XML reads as a namespace declaration, not as an element';
  if (ncName.test(key)) return 'holds _x, hex digits and _, which is how the XML answer escapes a character: choose another key';
  return (
    'is no XML element name (document 1 takes and answers XML too): a key starts with a letter or _ and holds letters, digits, _, - and . ' +
    '(no spaces, no colon, no other signs)'
  );
}

/**
 * Every key in a value, at any depth (objects in lists too), that does not write as itself: its
 * path from `at` as a request names it (`user.settings.a b`, `user.settings.list[1].q?`).
 */
export function keysNotWrittenAsThemselves(value: unknown, at: string): { field: string; key: string; parent: string }[] {
  const found: { field: string; key: string; parent: string }[] = [];
  const walk = (node: unknown, path: string): void => {
    if (Array.isArray(node)) return node.forEach((item, i) => walk(item, `${path}[${i}]`));
    if (node === null || typeof node !== 'object') return;
    for (const [key, child] of Object.entries(node)) {
      const field = `${path}.${key}`;
      if (!writesAsItself(key)) found.push({ field, key, parent: path });
      walk(child, field);
    }
  };
  walk(value, at);
  return found;
}
