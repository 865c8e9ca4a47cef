/**
 * CI's dependency audit (.ci/run, through tsx): `npm audit --omit=dev`, the shipped dependencies only.
 * - The registry refuses or cannot be reached (this machine's answers 405 to the bulk advisory
 *   call): says so and exits 0; an audit that cannot run must not stop the tests.
 * - It ran: prints every advisory; exits 1 when one is high or critical (CI_AUDIT_FAIL_LEVEL,
 *   default high; `none` only reports). A known high advisory in what production runs is a
 *   reason to stop a release, not a line to scroll past; moderate and low ones are reported.
 */
import { execFileSync } from 'node:child_process';

interface Advisory {
  severity: string;
  range?: string;
  via?: (string | { title: string; url: string })[];
}

interface AuditReport {
  message?: string;
  error?: { summary?: string };
  metadata?: { vulnerabilities?: Record<string, number> };
  vulnerabilities?: Record<string, Advisory>;
}

const levels = ['info', 'low', 'moderate', 'high', 'critical'];
const failLevel = process.env.CI_AUDIT_FAIL_LEVEL ?? 'high';

let out: string;
try {
  out = execFileSync('npm', ['audit', '--omit=dev', '--json'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 120000 });
} catch (err) {
  // npm audit exits 1 both when it found something and when the registry refused: the JSON says which.
  out = String((err as { stdout?: string }).stdout ?? '');
}
let report: AuditReport | undefined;
try {
  report = JSON.parse(out) as AuditReport;
} catch {
  report = undefined;
}
const counts = report?.metadata?.vulnerabilities;
if (!counts) {
  const why = report?.message ?? report?.error?.summary ?? 'no answer';
  console.log(`ci: npm audit unavailable (${why}); going on`);
  process.exit(0);
}
for (const [name, v] of Object.entries(report?.vulnerabilities ?? {})) {
  const titles = (v.via ?? []).flatMap((x) => (typeof x === 'object' ? [`${x.title} (${x.url})`] : []));
  console.log(`ci: audit: ${v.severity} ${name} ${v.range ?? ''} ${titles.join('; ')}`);
}
console.log(`ci: npm audit: ${levels.map((l) => `${counts[l] ?? 0} ${l}`).join(', ')}`);
const failing = failLevel === 'none' ? [] : levels.slice(levels.indexOf(failLevel)).filter((l) => (counts[l] ?? 0) > 0);
if (failing.length) {
  console.log(`ci: npm audit reports ${failing.join(' and ')} advisories in production dependencies: failing (CI_AUDIT_FAIL_LEVEL=${failLevel})`);
  process.exit(1);
}
