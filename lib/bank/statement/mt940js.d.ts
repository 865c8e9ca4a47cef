/** The part of mt940js 1.3.5 (a-fas/mt940js, README "Statement" and "Transaction") Kontor uses; it ships no types. */
declare module 'mt940js' {
  export interface Mt940Transaction {
    date: Date;
    entryDate: Date | '';
    /** With sign: credit +, debit -; a reversal flips it. */
    amount: number;
    isReversal: boolean;
    currency: string;
    transactionType: string;
    /** The account owner's reference (often NONREF for credits). */
    reference: string;
    /** The bank's reference (after // in :61:), '' when absent. */
    bankReference: string;
    extraDetails: string;
    /** The :86: lines joined by \n. */
    details: string;
    /** :86: subfields when structured: { '20': ..., '32': ... } (?DD or >DD) or { REMI: ..., NAME: ... } (/TAG/). */
    structuredDetails?: Record<string, string>;
  }

  export interface Mt940Statement {
    transactionReference: string;
    accountIdentification: string;
    number: { statement: string; sequence: string; section: string };
    currency: string;
    statementDate: Date;
    transactions: Mt940Transaction[];
  }

  export class Parser {
    constructor(options?: { no86Structure?: boolean });
    parse(data: string, withTags?: boolean): Mt940Statement[];
  }
}
