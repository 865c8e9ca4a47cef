/**
 * A CAMT document's XML read into the folded tree camt-node.ts reads: an element maps to its
 * trimmed text, to its object of children (text beside them as `#text`, attributes under
 * `@_<name>`), or to an array when it repeats; an empty element is ''. Namespace prefixes are
 * dropped from element and attribute names, xmlns declarations are not kept. This is the shape
 * fast-xml-parser gave with the project's options (lib/http/xml.ts), which the statement
 * reader was written against.
 *
 * Why saxes and not fast-xml-parser here: a statement is the largest XML Kontor takes (a month
 * of a busy seller's payments is megabytes). saxes reads it in one pass that is also the
 * well-formedness check (fast-xml-parser needs a second, validating pass), four to six times
 * faster, and as a stream: the text is fed in slices with the event loop free between them, so
 * no worker thread and no copy of the tree between threads is needed. Entities: XML's five and
 * character references; an HTML entity (&nbsp;) is not XML and makes the file malformed.
 */
import { SaxesParser } from 'saxes';
import { attributePrefix } from './camt-node';

type Folded = Record<string, unknown>;

interface Open {
  name: string;
  children: Folded | null;
  text: string;
}

/** Characters fed per slice: about a millisecond of parsing between two turns of the event loop. */
const sliceLength = 64 * 1024;

const localName = (name: string) => name.slice(name.indexOf(':') + 1);

function close(element: Open, parent: Open): void {
  const text = element.text.trim();
  let value: unknown = text;
  if (element.children) {
    value = element.children;
    if (text) element.children['#text'] = text;
  }
  parent.children ??= {};
  const before = parent.children[element.name];
  if (before === undefined) parent.children[element.name] = value;
  else if (Array.isArray(before)) before.push(value);
  else parent.children[element.name] = [before, value];
}

/** Parses the document; a malformed one throws saxes' message (line:column: what). */
export async function parseCamtXml(text: string): Promise<unknown> {
  const parser = new SaxesParser({ position: true });
  const root: Open = { name: '', children: null, text: '' };
  const stack: Open[] = [root];
  let failure: Error | null = null;
  parser.on('error', (err) => {
    failure ??= err;
  });
  parser.on('opentag', (tag) => {
    let children: Folded | null = null;
    for (const name in tag.attributes) {
      if (name === 'xmlns' || name.startsWith('xmlns:')) continue;
      (children ??= {})[`${attributePrefix}${localName(name)}`] = tag.attributes[name];
    }
    stack.push({ name: localName(tag.name), children, text: '' });
  });
  const addText = (t: string) => {
    stack[stack.length - 1]!.text += t;
  };
  parser.on('text', addText);
  parser.on('cdata', addText);
  parser.on('closetag', () => close(stack.pop()!, stack[stack.length - 1]!));
  for (let at = 0; at < text.length && !failure; at += sliceLength) {
    parser.write(text.slice(at, at + sliceLength));
    if (at + sliceLength < text.length) await new Promise<void>((resolve) => setImmediate(resolve));
  }
  if (!failure) parser.close();
  if (failure) throw failure;
  return root.children ?? {};
}
