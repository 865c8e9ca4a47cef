/**
 * A secret read from standard input (`--password-stdin`), so it appears neither in the process
 * list (`ps`, /proc/<pid>/cmdline) nor in the shell's history, as `docker login --password-stdin`
 * does. The first line, without its line break.
 */
export async function secretFromStdin(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) {
    text += String(chunk);
    if (text.includes('\n')) break;
  }
  return text.split(/\r?\n/)[0] ?? '';
}
