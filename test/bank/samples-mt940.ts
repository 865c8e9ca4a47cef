/**
 * What the 17 genuine MT940 files of shared/samples/bank/mt940 hold, read by hand from the files
 * and their SOURCES.md (bank, encoding, booked credits, what the source project's tests expect):
 * the expectations of samples-mt940.test.ts (parser) and samples-mt940-import.test.ts (API).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { StatementEntry } from '../../lib/bank/statement/statement.type';

export const samples = path.resolve(__dirname, '../../../shared/samples/bank/mt940');
export const sample = (name: string): Buffer => readFileSync(path.join(samples, name));

/** What a file must give: the counts, every credit's amount and currency in file order, and some entries in full. */
export interface Expected {
  statements: number;
  debits: number;
  returns: number;
  /** Every entry as 'amount currency', in file order. */
  amounts: string[];
  /** Entries by index: the fields given must equal. */
  some: Record<number, Partial<Omit<StatementEntry, 'transferDate'>> & { date?: string }>;
}

export const expected: Record<string, Expected> = {
  'jejik__volksbankenraiffeisenbanken.txt': {
    statements: 8,
    debits: 0,
    returns: 0,
    amounts: ['65.00', '80.00', '80.00', '55.00', '65.00', '80.00', '55.00', '55.00', '65.00', '50.00', '40.00', '55.00'].map((a) => `${a} EUR`),
    some: {
      0: { date: '2020-02-19', sender: 'Olivia Dorn', subject: 'einfach so fuer euch', payerReferences: [] },
      2: { date: '2020-02-21', amount: '80.00', sender: 'Antonio Sueto', subject: 'Musical Emilio CD' },
      3: { sender: 'Thomas Schulz', subject: 'Musical Sonja Schulz CD', payerReferences: ['ZV0100284190949300000002'] },
      5: { sender: 'Hellwig, Annegret, Hellwig, Dieter' },
      9: { date: '2020-02-28', sender: 'Edeltraud Meyer', subject: 'Spende' },
    },
  },
  'jejik__oldenburgischelandesbank.txt': {
    statements: 1,
    debits: 0,
    returns: 0,
    amounts: ['104.50 EUR'],
    some: {
      0: { date: '2018-07-16', sender: 'WOHNBAU DIEPHOLZ GMBH', subject: 'EWE,ENERGIEAUSWEIS RG.-NR. 1234567890 KD.-NR. 12377777', payerReferences: [] },
    },
  },
  'jejik__postfinance.txt': {
    statements: 2,
    debits: 1,
    returns: 0,
    amounts: ['79.70 CHF', '149.50 CHF', '10.10 CHF'],
    some: {
      0: { date: '2013-12-09', sender: 'JANE DOE EXAMPLESTRASSE 10 1234 XXXX', subject: 'RECHNUNG XXXXXXXXXXXX' },
      1: { date: '2013-12-09', sender: 'JOHN DOE EXAMPLESTRASSE 12 1234 XXXXXXXXXX', subject: '' },
      2: { date: '2013-12-18', sender: '', subject: 'EINZAHLUNGSSCHEIN' },
    },
  },
  'jejik__abnamro.txt': { statements: 2, debits: 10, returns: 0, amounts: [], some: {} },
  'jejik__ing-dos.txt': {
    statements: 1,
    debits: 5,
    returns: 0,
    amounts: ['3.68 EUR', '1.00 EUR'],
    some: {
      0: { date: '2010-07-22', subject: '0123456789 EJ46GREENP100610T1456 CLIEOP TMG GPHONGKONG AMSTERDAM' },
      1: { date: '2010-07-23', subject: '0111111111 Hr S Marechal ROSMALEN Hr S Marechal ROSMALEN Betaling transactiedatum: 22-07-2010' },
    },
  },
  'jejik__knab.txt': {
    statements: 2,
    debits: 1,
    returns: 0,
    amounts: ['500.00 EUR', '500.00 EUR'],
    some: {
      0: { date: '2014-05-07', sender: '', subject: 'HIER EEN MOOIE OMSCHRIJVING IN HOOFDLETTERS WANT DAT IS ZOALS DE NEDERLANDSE BANKEN COMMUNICEREN' },
      1: { date: '2014-07-29', sender: 'MMS ONLINE NEDERLAND B.V.', subject: '12160475 0050001631430920 ORDERID: 264267 MEDIA MARKT ONLINE NE' },
    },
  },
  'cmxl__mt940-iso8859-1.txt': {
    statements: 1,
    debits: 1,
    returns: 0,
    amounts: ['3000.00 EUR'],
    some: { 0: { date: '2002-11-02', sender: 'MÜLLER', subject: 'Gehalt Oktober FirmaMüstermannGmbH' } },
  },
  'cmxl__mt940-deutsche_bank.txt': {
    statements: 3,
    debits: 9,
    returns: 0,
    amounts: ['18500.00 DEM', '4200.00 DEM', '3656.74 DEM', '23040.00 DEM', '3000.00 EUR', '20000.00 PLN', '40.00 PLN'],
    some: {
      0: { date: '2013-10-17', subject: 'PN2406SCHECK' },
      4: { sender: 'MUELLER', subject: 'Gehalt Oktober FirmaMustermannGmbH' },
      5: { date: '2003-10-20', sender: 'HUTA SZKLA TOPIC ULPRZEMY SLOWA 67 32-669 WROCLAW' },
      6: { sender: '', subject: 'Odsetki od lokaty nr 101000022086' },
    },
  },
  'phpmt940__Spk_sample.sta': {
    statements: 4,
    debits: 1,
    returns: 0,
    amounts: ['80.00', '250.00', '82.00', '100.00', '10.00', '50.00', '250.00', '100.00', '10.00'].map((a) => `${a} EUR`),
    // The file holds "MšLLER" (CP850 Ü read as Windows-1252 before it reached the repository): as written.
    some: {
      0: { date: '2010-02-04', sender: 'MšLLER, GRETEL SOMECITY', subject: 'SOME DESCRIPTION MORE DESC' },
      4: { sender: 'AUGUST MEYER ANET TE MEYER', subject: 'HANS BAMBEL, MALTA' },
    },
  },
  'phpmt940__Kontist_sample.sta': {
    statements: 1,
    debits: 2,
    returns: 0,
    amounts: ['50.00 EUR', '120.00 EUR', '95.95 EUR', '250.00 EUR'],
    some: {
      0: { date: '2021-02-15', sender: 'CHRISTIAN BENDT', subject: '' },
      1: { sender: 'Lucien Schünke' },
      2: { date: '2021-02-17', sender: 'DM PUTZ + STUCK UG HAFTUNGSBESCHRANKT', subject: 'Rechnung-Nr.: INV-00002 v. 13.02.21' },
      3: { sender: 'WCM UG HAFTUNGSBESCHRÄNKT', subject: 'INV-00003' },
    },
  },
  'phpmt940__Rabo_sample.sta': {
    statements: 39,
    debits: 13,
    returns: 0,
    amounts: [
      ...['300.00', '300.00', '500.00', '100.00'].map((a) => `${a} EUR`),
      ...['43985.66', '625.00', '121189.65'].map((a) => `${a} USD`),
      ...[
        '350.43',
        '299.47',
        '282.81',
        '1406.50',
        '772.55',
        '3288.86',
        '40310.50',
        '6700.00',
        '5404.85',
        '250.00',
        '13476.12',
        '250.00',
        '899.00',
        '12848.00',
        '47895.38',
        '500.00',
      ].map((a) => `${a} EUR`),
      '1560395.00 JPY',
      '79734.00 JPY',
      '1245.00 EUR',
    ],
    some: {
      0: { date: '2003-01-09', sender: '', subject: 'Demo gebruiker Spaarpot kantine' },
      1: { subject: 'Contante storting Overige' },
      4: { date: '2003-01-10', sender: 'MR AND MRS DAVIDS', subject: 'INV. 18' },
      6: { sender: 'CHIPPER FOODS', subject: 'INVOICE 38' },
      23: { sender: 'YAN SO', subject: 'SEAFREIGHT DECEMBER 1999' },
    },
  },
  'phpmt940__Rabo_sample3.sta': {
    statements: 2,
    debits: 4,
    returns: 0,
    amounts: ['169.90', '173.50', '171.66', '1640.76', '2050.95', '1923.90', '13431.00', '384.75'].map((a) => `${a} EUR`),
    some: {
      // The /TAG/ layout's lines are joined as they are, as php-mt940 (this file's source) and
      // zilverline/mt940 join them: the bank cut one string into lines (README, field 86).
      0: { date: '2013-04-03', sender: 'Bedrijf B.V.', subject: 'NR.201303-111/11.3.2013NR.201303-112/11.3.2013', payerReferences: [] },
      2: { sender: 'D VAN WAARD CJ', subject: '/IBS.00008908/ 1001680-P796142 KINDEROPVANG' },
      5: { sender: 'BEDRIJF NV', subject: 'Ref: 201302-080', payerReferences: ['1134027115'] },
      7: { date: '2013-09-20', sender: 'Hr A B Huibers en/of Mw S L Huibers-Huveneers', subject: '1000122-P5549161' },
    },
  },
  'phpmt940__Bunq_sample.sta': {
    statements: 1,
    debits: 85,
    returns: 0,
    amounts: [
      '2.00',
      '0.30',
      '75.00',
      '40.00',
      '45.00',
      '211.00',
      '0.98',
      '43.33',
      '15.00',
      '50.00',
      '14.95',
      '40.00',
      '15.00',
      '43.33',
      '0.62',
      '26.66',
      '22.00',
      '40.00',
      '0.55',
      '1.00',
      '0.61',
      '25.00',
      '25.00',
      '17.00',
      '5.70',
      '1.63',
    ].map((a) => `${a} EUR`),
    some: {
      0: { date: '2019-01-31', sender: 'P.C. Wacki', subject: '' },
      2: { date: '2019-02-09', sender: 'SRMF WILLEMS', subject: 'Proficiat' },
      7: { sender: 'STICHTING VILENTE', subject: 'Salaris februari 2019' },
    },
  },
  'phpmt940__Triodos_sample.sta': {
    statements: 2,
    debits: 6,
    returns: 0,
    amounts: ['150.00 EUR', '150.00 EUR'],
    some: {
      0: {
        date: '2012-11-23',
        sender: '',
        subject: 'TENAAMSTELLING TEGENREKENING EN ADRES TEGENREKENING EN PLAATS TEGENREKENING EN EEN LANGE OMSCHRIJVING VAN DE TRANSACTIE',
      },
    },
  },
  'betterplace__sepa_mt9401.txt': {
    statements: 26,
    debits: 56,
    returns: 17,
    amounts: [
      '66295.08',
      '15000.05',
      '50.05',
      '125.88',
      '125004.88',
      '250000.00',
      '300000.00',
      '500000.00',
      '204.88',
      '50990.05',
      '19990.05',
      '13990.05',
      '50990.05',
      '16500.07',
      '19990.05',
      '56500.07',
      '50990.05',
      '154551.93',
      '154551.93',
      '15000.05',
      '125004.88',
      '1910.05',
      '50990.05',
      '50.05',
    ].map((a) => `${a} EUR`),
    some: {
      2: {
        date: '2007-09-04',
        sender: 'Richter Renate 70 Zeichen Beginn Fuellzeichen xxxxxxxx',
        subject: 'Keine Buchung zu: TO13 TF52001 MINT',
        payerReferences: ['EndToEndIdTFNR5200100001'],
      },
      9: { sender: 'Florian Frech', subject: 'Verwend CTSc-01 eBB TFNr 21005', payerReferences: ['TFNR 21005 EndToEndId 00001'] },
    },
  },
  'mt940rs__danskebank_MT940_DK_Example.sta': {
    statements: 15,
    debits: 81,
    returns: 0,
    amounts: ['2000.00', '5183.49', '993.75', '3260.00', '693325.00', '1054100.00', '2072226.11', '79798.00'].map((a) => `${a} DKK`),
    some: {
      0: { date: '2009-09-29', subject: 'DB faktura 1234567 Testkunde HOLMENS KANAL 2-12 1192 KOBENHAVN H' },
      1: { date: '2009-09-30', subject: '' },
    },
  },
  'wolph__raiffeisen-cmi.sta': {
    statements: 1,
    debits: 6,
    returns: 0,
    amounts: ['2066637.00 HUF'],
    some: {
      0: {
        date: '2018-04-17',
        subject: 'CAB18D1700041116 109876543210000012345678 HUNGARY KFT. UV, napi összevont utánvét, 2018.04 .17, A13947109201804175000000097, X',
      },
    },
  },
};
