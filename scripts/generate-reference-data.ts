/**
 * Regenerates lib/reference/data/{countries,currencies}.json from well-kept npm data sets
 * (i18n-iso-countries, currency-codes). The JSON is committed so that ids never shift when a
 * data set adds an entry: new entries are appended with the next internal id.
 * Run: npx tsx scripts/generate-reference-data.ts
 */
import fs from 'node:fs';
import path from 'node:path';
import countries from 'i18n-iso-countries';
import currencyCodes from 'currency-codes';

const dataDir = path.join(__dirname, '..', 'lib', 'reference', 'data');
const otherLanguages = ['fr', 'it', 'es', 'nl', 'pl', 'cs', 'da', 'sv', 'pt'];

// UN M49 region 150 (Europe), plus the EU members M49 files under Asia (Cyprus).
const europe = new Set(
  (
    'AD AL AT AX BA BE BG BY CH CY CZ DE DK EE ES FI FO FR GB GG GI GR HR HU IE IM IS IT JE ' +
    'LI LT LU LV MC MD ME MK MT NL NO PL PT RO RS RU SE SI SJ SK SM UA VA XK'
  ).split(' '),
);
const eu = new Set('AT BE BG CY CZ DE DK EE ES FI FR GR HR HU IE IT LT LU LV MT NL PL PT RO SE SI SK'.split(' '));

function loadLocale(lang: string): void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  countries.registerLocale(require(`i18n-iso-countries/langs/${lang}.json`));
}

function names(lang: string, iso2: string): string[] {
  const all = countries.getNames(lang, { select: 'all' }) as unknown as Record<string, string[] | undefined>;
  return all[iso2] ?? [];
}

function generateCountries(): void {
  for (const lang of ['de', 'en', ...otherLanguages]) loadLocale(lang);
  const rows = Object.keys(countries.getAlpha2Codes())
    .sort()
    .map((iso2) => ({
      id: iso2,
      iso3: countries.alpha2ToAlpha3(iso2),
      name: {
        de: names('de', iso2),
        en: names('en', iso2),
        other: [...new Set(otherLanguages.flatMap((lang) => names(lang, iso2)))],
      },
      is_europe: europe.has(iso2),
      is_eu: eu.has(iso2),
    }));
  fs.writeFileSync(path.join(dataDir, 'countries.json'), JSON.stringify(rows, null, 1) + '\n');
}

/**
 * ISO 4217 amendments currency-codes 2.2.0 (its newest) lacks: 176, XCG Caribbean Guilder for
 * Curaçao and Sint Maarten from 2025-03-31 (replacing ANG), and 179, XAD Arab Accounting Dinar
 * (a fund code) from 2025-05-12. Withdrawn codes (ANG, CUC, ...) stay: stored orders name them and
 * internal ids never shift.
 */
const amendments = [
  { id: 'XAD', name: 'Arab Accounting Dinar' },
  { id: 'XCG', name: 'Caribbean Guilder' },
];

function generateCurrencies(): void {
  const file = path.join(dataDir, 'currencies.json');
  const existing: { internal_id: number; id: string; name: string }[] = fs.existsSync(file)
    ? JSON.parse(fs.readFileSync(file, 'utf8'))
    : [{ internal_id: 0, id: 'EUR', name: 'Euro' }];
  const known = new Set(existing.map((c) => c.id));
  let next = Math.max(...existing.map((c) => c.internal_id)) + 1;
  for (const code of currencyCodes.codes().sort()) {
    if (known.has(code)) continue;
    existing.push({ internal_id: next++, id: code, name: currencyCodes.code(code)?.currency ?? code });
    known.add(code);
  }
  for (const { id, name } of amendments) if (!known.has(id)) existing.push({ internal_id: next++, id, name });
  fs.writeFileSync(file, JSON.stringify(existing, null, 1) + '\n');
}

generateCountries();
generateCurrencies();
