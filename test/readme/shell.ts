/**
 * One bash session fed command by command, as a newcomer's terminal: variables and functions a
 * step sets (`TOKEN=$(...)`, `order() {...}`) hold for the steps after it.
 */
import { spawn, ChildProcessWithoutNullStreams } from 'node:child_process';

export class Shell {
  private readonly bash: ChildProcessWithoutNullStreams;
  private output = '';
  private count = 0;

  constructor(cwd: string, env: NodeJS.ProcessEnv) {
    this.bash = spawn('bash', ['--noprofile', '--norc'], { cwd, env });
    this.bash.stdout.on('data', (d: Buffer) => (this.output += d.toString('utf8')));
    this.bash.stderr.on('data', (d: Buffer) => (this.output += d.toString('utf8')));
  }

  /** What the command printed (standard output and error), once it has finished. */
  async run(command: string, ms = 60000): Promise<string> {
    const marker = `__step_${++this.count}_done__`;
    this.output = '';
    this.bash.stdin.write(`{\n${command}\n} < /dev/null\necho; echo ${marker}\n`);
    const deadline = Date.now() + ms;
    while (!this.output.includes(marker)) {
      if (Date.now() > deadline) throw new Error(`no end within ${ms} ms of: ${command}\n${this.output}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return this.output.slice(0, this.output.indexOf(marker)).trim();
  }

  close(): void {
    this.bash.stdin.end();
    this.bash.kill();
  }
}
