/**
 * Every Admin API document the webshop adapter sends, validated against Shopify's own schema
 * (../shared/contracts/shopify/admin_schema_2025-01.json, read through the sandbox's loader) with
 * graphql's validate(): fields, arguments and their types, variables and where they are used. The
 * sandbox validates what a test run exchanges; this holds also the documents no test sends (a
 * refusal's path, a store shape the suite does not build), as a strict emulator written by someone
 * else from the schema would answer them.
 *
 * These are the 2025-01 documents (every version sends them but the inventory set, which differs from 2026-01). The documents of a later
 * version (shopifyLaterDocuments: the inventory set with changeFromQuantity's @idempotent key from
 * 2026-01, lib/portals/shopify/shopify-version.ts) cannot be validated against Shopify's schema:
 * no schema file of 2026-01 or later is available (SOURCES.md). The last test checks them against
 * the sandbox's 2025-01 schema amended by the changelog's inventory set changes only
 * (sandbox/shopify-versions.sandbox.ts), which says nothing of what else those versions changed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { getOperationAST, NoDeprecatedCustomRule, parse, specifiedRules, validate } from 'graphql';
import { shopifyDocuments, shopifyLaterDocuments } from '../../lib/portals/shopify/shopify-client';
import { shopifyApiVersions } from '../../config/channel-apps';
import { speaksChangeFrom } from '../../lib/portals/shopify/shopify-version';
import { orderLinesQuery } from '../../lib/portals/shopify/order-amounts';
import '../../lib/portals/webshop.adapter';
import '../../lib/portals/shopify/order-refunds';
import '../../lib/portals/shopify/shopify-webhooks';
import { shopifySchema, shopifySchemaOf } from '../../sandbox/shopify.sandbox';

/** The files that write Admin API documents: an operation named in them and not registered fails the last test. */
const sources = ['lib/portals/webshop.adapter.ts', ...fs.readdirSync('lib/portals/shopify').map((f) => path.join('lib/portals/shopify', f))];

describe('webshop: every Shopify Admin API document against admin_schema_2025-01.json', () => {
  // The one document built per order: each combination of what it may read.
  for (const totals of [false, true])
    for (const taxes of [false, true]) for (const duties of [false, true]) for (const fees of [false, true]) orderLinesQuery({ totals, taxes, duties, fees });
  const documents = [...shopifyDocuments].map((text) => ({ text, document: parse(text) }));
  const name = (d: (typeof documents)[number]) => getOperationAST(d.document)?.name?.value ?? '(unnamed)';

  it('each document is valid against the schema: no unknown field or argument, no wrong type or nullability, every variable declared and used', () => {
    const schema = shopifySchema();
    const problems = documents.flatMap((d) => validate(schema, d.document).map((e) => `${name(d)}: ${e.message}`));
    expect(problems).to.deep.equal([]);
  });

  it('no document reads or calls what the schema marks deprecated (it may go in a later version)', () => {
    const schema = shopifySchema();
    const problems = documents.flatMap((d) => validate(schema, d.document, [...specifiedRules, NoDeprecatedCustomRule]).map((e) => `${name(d)}: ${e.message}`));
    expect(problems).to.deep.equal([]);
  });

  it('every operation the code names is among the documents checked (registered with shopifyDocument)', () => {
    const written = new Set(sources.flatMap((file) => [...fs.readFileSync(file, 'utf8').matchAll(/\b(?:query|mutation) (Kontor\w+)/g)].map((m) => m[1]!)));
    const checked = new Set(documents.map(name));
    expect([...written].filter((n) => !checked.has(n))).to.deep.equal([]);
    expect(written.size).to.be.above(25);
  });

  it("a later version's documents are valid against the sandbox's amended schema of each such version (not Shopify's: none is available)", () => {
    const later = [...shopifyLaterDocuments].map((text) => parse(text));
    expect(later).to.have.length.above(0);
    const problems = shopifyApiVersions
      .filter(speaksChangeFrom)
      .flatMap((v) => later.flatMap((d) => validate(shopifySchemaOf(v), d).map((e) => `${v} ${getOperationAST(d)?.name?.value}: ${e.message}`)));
    expect(problems).to.deep.equal([]);
  });
});
