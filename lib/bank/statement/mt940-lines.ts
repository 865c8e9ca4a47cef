/**
 * The framing of an MT940 file as banks deliver it, cut into statements of tagged fields.
 *
 * A statement starts at its `:20:` line and ends at a line `-` (unless a field other than
 * `:20:` follows it, directly or after more text lines: then the `-` was text of the field
 * before), at `-}` (the end of a SWIFT FIN
 * text block), at Rabobank's `:940:` line, or at the next `:20:`. Outside a statement every line
 * that is not a tag is framing and skipped: ABN AMRO's and bunq's 3-line headers (`ABNANL2A` /
 * `940` / `ABNANL2A`), the SWIFT FIN blocks `{1:...}{2:...}{3:...}{4:` and `{5:...}`, a prose
 * preamble (Danske Bank's example file). SOH (0x01), ETX (0x03), SUB (^Z, 0x1A) and the other
 * control characters but TAB are transmission characters and dropped wherever they stand; blank lines are skipped; LF, CRLF and
 * CR all end a line. A `-` glued before a tag (`-:61:`) is a `-` line and the tag's line: it
 * ends the statement before a `:20:` and is dropped before any other tag. Inside a statement a line that is not a tag continues the field before it
 * (:61: supplementary details, :86: lines). A tag outside any statement (no `:20:` before it) is a
 * broken file.
 */

/** One field: its tag (`20`, `28C`, `61`, `86` ...), the line it starts on (1-based) and its lines. */
export interface Mt940Field {
  tag: string;
  line: number;
  /** The first line without its tag, then the continuation lines as written. */
  lines: string[];
}

export interface Mt940Block {
  /** The line of its :20:. */
  line: number;
  fields: Mt940Field[];
  /**
   * Whether its end is marked by the format's terminator (`-`, `-}`), not by the end of the file
   * or the start of another statement (`{4:`, `:940:`, `:20:`): a statement the file stops
   * inside, or that a cut file's next statement follows, may have lost entries or text (../mt940.ts).
   */
  ended: boolean;
}

/** A line the file cannot be read past, with what is wrong there. */
export class Mt940FramingError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(message);
  }
}

const tagLine = /^:(\d{2}[A-Z]?|NS):/;
/** Control characters but TAB: SOH, ETX, SUB (^Z) and the like frame a transmission, they are no text. */
const transmission = /(?!\t)\p{Cc}/gu;

export function statementBlocks(text: string): Mt940Block[] {
  const blocks: Mt940Block[] = [];
  let open: Mt940Block | null = null;
  // marked: the statement's own terminator. The start of another statement closes the open one
  // without: two files run together, the first cut, put the second's :20: after a cut text.
  const end = (marked: boolean) => {
    if (open && marked) open.ended = true;
    open = null;
  };
  const lines = text.split(/\r\n|\r|\n/);
  lines.forEach((raw, index) => {
    const line = index + 1;
    let l = raw.replace(transmission, '');
    // A terminator glued before a tag (`-:61:...`): some German banks send the '-' of a page so
    // (hbci4java's TestBrokenMT940: "Einige Banken senden sowas aber"). Read as a line `-` and the
    // tag's line: before a :20: it ends the open statement, before any other tag of the statement
    // it is dropped. Before, the line was text of the field before, and its entry was lost unseen.
    const dashed = /^\s*-(?=:(?:\d{2}[A-Z]?|NS):)/.exec(l);
    if (dashed) {
      l = l.slice(dashed[0].length);
      if (l.startsWith(':20:')) end(true);
    }
    if (l.trim() === '-' && open && continues(lines, index + 1)) {
      // Rabobank wraps a field 86 text ending in '-' so that the '-' stands alone on its line
      // (zilverline/mt940's "dash as start of line" file): the statement's :62F: still follows.
      // ING's wraps cut inside a text (OCA's test-ing.940: `/MARF/MND` `-` `EV01//CSID...`), so
      // more text lines follow the '-' before the next field. A '-' line followed, directly or
      // after text lines, by a field other than :20: is text of the field before, not the end.
      open.fields[open.fields.length - 1]!.lines.push(l);
      return;
    }
    if (/^\s*-\}/.test(l) || l.trim() === '-') {
      end(true);
      l = l.replace(/^\s*-\}?/, '');
    }
    const textBlock = l.lastIndexOf('{4:');
    if (textBlock >= 0) {
      end(false);
      l = l.slice(textBlock + 3);
    } else if (l.trimStart().startsWith('{')) return;
    if (l.trim() === '') return;
    if (/^:940:\s*$/.test(l)) {
      end(false);
      return;
    }
    const tag = tagLine.exec(l);
    if (tag?.[1] === '20') {
      end(false);
      open = { line, fields: [], ended: false };
      blocks.push(open);
    }
    if (tag) {
      if (!open) throw new Mt940FramingError(line, `:${tag[1]}: stands outside a statement (no :20: before it)`);
      open.fields.push({ tag: tag[1]!, line, lines: [l.slice(tag[0].length)] });
      return;
    }
    const current: Mt940Block | null = open;
    if (current) current.fields[current.fields.length - 1]!.lines.push(l);
  });
  return blocks;
}

/**
 * Whether the next field after text lines is one of the open statement (a tag, not :20:). Framing
 * (`{`, `-`, `-}`) or the end of the file first: the statement ended. ABN AMRO's and bunq's
 * headers between statements are text lines before a :20:, so a `-` before them still ends one.
 */
function continues(lines: string[], from: number): boolean {
  for (let i = from; i < lines.length; i++) {
    const l = lines[i]!.replace(transmission, '');
    // Blank lines, and further lines `-`: a text may hold several (ecampostrini/mt940-ts's field 86
    // runs `-LINE2`, `-`, `    -    ` before the :62F:); the field after them decides.
    if (l.trim() === '' || l.trim() === '-') continue;
    if (/^\s*[{-]/.test(l)) return false;
    const tag = tagLine.exec(l);
    if (tag) return tag[1] !== '20';
  }
  return false;
}
