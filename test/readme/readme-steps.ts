/**
 * The README's shell blocks as steps a newcomer types: each command (with its continuation lines
 * and here-document) and the answer the README prints under it. Only an answer that is data is
 * kept as an expectation: comment lines starting with `{`, `[` or `<`, and the indented lines
 * continuing them; prose comments are not. `...` in an expectation stands for anything, and a
 * remark after the data (three spaces, then parentheses) is not part of it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
export interface Step {
  command: string;
  /** The answer the README shows, or undefined when it shows none (or only prose). */
  expected?: string;
}

const readme = () => readFileSync(path.join(__dirname, '..', '..', 'README.md'), 'utf8');

/** The text of the section headed `## <title>` (up to the next `## `). */
export function readmeSection(title: string): string {
  const text = readme();
  const start = text.indexOf(`\n## ${title}\n`);
  if (start < 0) throw new Error(`README has no section "## ${title}"`);
  const end = text.indexOf('\n## ', start + 1);
  return text.slice(start, end < 0 ? undefined : end);
}

/** The ```sh blocks of a section, the first `blocks` of them (all by default). */
export function shellBlocks(section: string, blocks = Infinity): string[] {
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!).slice(0, blocks);
}

export function stepsOf(blocks: string[]): Step[] {
  const steps: Step[] = [];
  for (const block of blocks) {
    const lines = block.split('\n');
    let expecting: string[] | undefined;
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!;
      const last = steps[steps.length - 1];
      if (line.startsWith('#')) {
        expecting = expectation(line, expecting, last?.expected === undefined);
        if (expecting && last) last.expected = expecting.join('');
      } else if (line.trim()) {
        const [command, end] = commandAt(lines, i);
        steps.push({ command });
        i = end;
        expecting = undefined;
      } else expecting = undefined;
    }
  }
  return steps;
}

/**
 * The data lines read so far under a command, after this comment line: an indented line continues
 * the data of the line before, another line of XML follows it on a line of its own, and a first
 * line of data starts it (only under a command that has none yet). A remark after the data, set
 * off by three spaces (`[...]     (the offer's quantity ...)`), is dropped; prose ends it.
 */
function expectation(line: string, expecting: string[] | undefined, open: boolean): string[] | undefined {
  const text = line.replace(/^#\s?/, '').replace(/\s{3,}\(.*$/, '');
  if (expecting && /^\s+[^\s(]/.test(text)) return [...expecting, text.trim()];
  if (expecting && /^</.test(text)) return [...expecting, `\n${text}`];
  if (!expecting && open && /^[{[<]/.test(text)) return [text.trim()];
  return undefined;
}

/** The command starting at lines[i] with its continuation lines and here-document, and the index of its last line. */
function commandAt(lines: string[], i: number): [string, number] {
  let command = lines[i]!;
  while (command.endsWith('\\') && i + 1 < lines.length) command += `\n${lines[++i]}`;
  const heredoc = /<<-?'?([A-Z]+)'?/.exec(command);
  if (heredoc) while (i + 1 < lines.length && lines[i]!.trim() !== heredoc[1]) command += `\n${lines[++i]}`;
  return [command, i];
}

/** Dates and the month in order ids (`1_2026_11`) as the day the README was written has them. */
function undated(text: string): string {
  return text
    .replace(/\d{4}-\d{2}-\d{2}/g, 'DATE')
    .replace(/\d{2}\.\d{2}\.\d{4}/g, 'DATE')
    .replace(/_\d{4}_\d{1,2}\b/g, '_YEAR_MONTH');
}

function sameJson(expected: string, got: string): boolean {
  try {
    return isDeepStrictEqual(JSON.parse(expected), JSON.parse(got));
  } catch {
    return false;
  }
}

/** Whether what a command printed is what the README shows under it. */
export function answers(expected: string, got: string): boolean {
  const [want, have] = [undated(expected), undated(got.trim())];
  if (!want.includes('...')) return want === have || sameJson(want, have);
  const pattern = want
    .split('...')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('[\\s\\S]*?');
  return new RegExp(`^${pattern}$`).test(have);
}
