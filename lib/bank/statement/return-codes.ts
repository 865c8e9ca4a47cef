/**
 * The codes that make a credit a return or reversal of the holder's own payment, shared by the
 * MT940 and CAMT readers: the same booking must be a return in both formats (a German bank gives
 * its DK code in MT940 as the :61: type and the :86: business code, in CAMT as
 * BkTxCd/Prtry/Cd `<SWIFT code>+<GVC>[+<addition>]`; DK Anlage 3).
 *
 * German business codes (DK Anlage 3, GVC list, the R-transactions): 108/109 SEPA direct debit
 * returned (B2B/Core), 110 SEPA card clearing returned, 159/160 SEPA credit transfer (instant)
 * returned ("RETOURE"), 181/184 SEPA direct debit refunded (Core/B2B, "Wiedergutschrift"), 182
 * card clearing refund, 193 SEPA direct debit reversal, 199 card clearing reversal, 899 reversal
 * ("Storno"). SWIFT transaction type RTI (returned item).
 */
export const germanReturnCodes: ReadonlySet<string> = new Set(['108', '109', '110', '159', '160', '181', '182', '184', '193', '199', '899']);
export const swiftReturnTypes: ReadonlySet<string> = new Set(['RTI']);

/** A DK proprietary code `<SWIFT code>+<GVC>[+<addition>]`: its SWIFT type (without the N) and GVC. */
const dkCode = /^[A-Z]([A-Z]{3})\+(\d{3})(?:\+|$)/;

/** Whether a DK proprietary code (CAMT BkTxCd/Prtry/Cd) names a return, as the MT940 reader reads the same codes. */
export function isDkReturn(code: string): boolean {
  const m = dkCode.exec(code.trim());
  return !!m && (swiftReturnTypes.has(m[1]!) || germanReturnCodes.has(m[2]!));
}
