/**
 * A camt.053.001.02 statement of our own making around entries a test writes (the genuine bank
 * files are read from ../shared/samples/bank; these shapes are the ones they lack): one Stmt of the
 * account DE89370400440532013000 in EUR, created on `created`.
 */
export const STATEMENT_IBAN = 'DE89370400440532013000';

export const camtStatement = (id: string, entries: string[], created = '2026-11-27T18:00:00+01:00'): Buffer =>
  Buffer.from(`<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02">
  <BkToCstmrStmt>
    <GrpHdr><MsgId>${id}</MsgId><CreDtTm>${created}</CreDtTm></GrpHdr>
    <Stmt>
      <Id>${id}</Id><CreDtTm>${created}</CreDtTm>
      <Acct><Id><IBAN>${STATEMENT_IBAN}</IBAN></Id><Ccy>EUR</Ccy></Acct>${entries.join('')}
    </Stmt>
  </BkToCstmrStmt>
</Document>`);
