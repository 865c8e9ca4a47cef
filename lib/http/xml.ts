import { XMLBuilder, XMLParser } from 'fast-xml-parser';
import { badRequest } from './errors';

const parser = new XMLParser({
  ignoreAttributes: true,
  // Values stay strings ("0012345678905", "1e5"); the endpoint's schema converts by type.
  parseTagValue: false,
  processEntities: false,
  trimValues: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
});

const builder = new XMLBuilder({ format: false, suppressEmptyNode: true, processEntities: true });

/**
 * Parses an XML request body under its <request> root. DOCTYPE and entity declarations are
 * refused: entity expansion is the classic XML denial of service.
 */
export function parseXmlRequest(text: string): Record<string, unknown> {
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) throw badRequest('xml_doctype_refused', 'XML with a DOCTYPE or entity declarations is not accepted');
  let parsed: unknown;
  try {
    parsed = parser.parse(text, true);
  } catch (err) {
    throw badRequest('malformed_xml', `the XML body is malformed: ${(err as Error).message.split('\n')[0]}`);
  }
  const root = (parsed as Record<string, unknown>).request;
  if (root === undefined) throw badRequest('malformed_xml', 'the XML body must have a <request> root element');
  if (root === '') return {};
  if (typeof root !== 'object' || root === null || Array.isArray(root)) {
    throw badRequest('malformed_xml', 'the <request> element must contain fields');
  }
  return root as Record<string, unknown>;
}

/** Serialises an envelope under a <response> root; lists become repeated elements. */
export function buildXmlResponse(envelope: Record<string, unknown>, charset: string): string {
  return `<?xml version="1.0" encoding="${charset.toUpperCase()}"?>\n${builder.build({ response: envelope })}`;
}
