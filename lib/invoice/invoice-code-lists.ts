/**
 * The code lists EN 16931 checks currencies and countries against (BR-CL-03, 04, 05: ISO 4217
 * alpha-3; BR-CL-14: ISO 3166-1 alpha-2), as data. Kontor's own lists (GET system/currency/,
 * system/country/) are wider (XK Kosovo, BGN, STN, ANG, CUC, XAD, SS): an invoice naming one of
 * those is refused by every EN 16931 validator, and an issued invoice never changes, so
 * invoice-requirements.ts refuses to issue it instead.
 *
 * Source: the CEN/TC 434 validation artefacts the README names, ConnectingEurope/eInvoicing-EN16931
 * `cii/xslt/EN16931-CII-validation.xslt`, schematron version 1.3.16 (last update 2026-03-30): the
 * lists its asserts BR-CL-04 (ram:InvoiceCurrencyCode) and BR-CL-14 (ram:CountryID) hold, copied
 * as they are (1A, AN and XI included; XK and SS not). A new release of the
 * artefacts may change them; this file follows the release the README says we validated with.
 */

/** ISO 4217 alpha-3 as BR-CL-03/04/05 of the CEN validation 1.3.16 takes it. */
export const cenCurrencies: ReadonlySet<string> = new Set(
  (
    'AED AFN ALL AMD AOA ARS AUD AWG AZN BAM BBD BDT BHD BIF BMD BND BOB BOV BRL BSD BTN BWP BYN BZD CAD CDF CHE CHF CHW CLF ' +
    'CLP CNH CNY COP COU CRC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GNF GTQ GYD HKD HNL HTG ' +
    'HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS KHR KMF KPW KRW KWD KYD KZT LAK LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK ' +
    'MNT MOP MRU MUR MVR MWK MXN MXV MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD RUB RWF SAR ' +
    'SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STD SVC SYP SZL THB TJS TMT TND TOP TRY TTD TWD TZS UAH UGX USD USN UYI UYU UYW ' +
    'UZS VES VED VND VUV WST XAF XAG XAU XBA XBB XBC XBD XCD XCG XDR XOF XPD XPF XPT XSU XTS XUA XXX YER ZAR ZMW ZWG'
  ).split(' '),
);

/** ISO 3166-1 alpha-2 as BR-CL-14 of the CEN validation 1.3.16 takes it. */
export const cenCountries: ReadonlySet<string> = new Set(
  (
    '1A AD AE AF AG AI AL AM AN AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BL BJ BM BN BO BQ BR BS BT BV BW BY BZ CA ' +
    'CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR GA GB GD ' +
    'GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI ' +
    'KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY ' +
    'MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG ' +
    'SH SI SJ SK SL SM SN SO SR ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG ' +
    'VI VN VU WF WS XI YE YT ZA ZM ZW'
  ).split(' '),
);
