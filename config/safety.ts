/**
 * What a configuration leaves unsafe, for `kontor doctor` and the start-up of every process, and
 * the one setting without which the Procfile's processes refuse to start (CREDENTIALS_KEY).
 * Pure functions of a Config: the caller decides whether to print, log or exit.
 */
import { Config, namesEveryAddress } from './index';

/** One unsafe setting: the variable to change and why. */
export interface Finding {
  variable: string;
  problem: string;
}

const loopbackHost = (host: string) => ['127.0.0.1', 'localhost', '::1', '[::1]'].includes(host) || host.startsWith('127.');

/**
 * Trusting every address for X-Forwarded-For lets any client choose its address (and so its login
 * throttle): any address with the prefix 0, however written (::0/0, 0.0.0.0/00, 10.0.0.0/0 alike).
 */
const trustsEveryone = namesEveryAddress;

/** Everything of the configuration that a production deployment must not run with. */
export function unsafeSettings(cfg: Config): Finding[] {
  const findings: Finding[] = [];
  if (cfg.env !== 'production')
    findings.push({ variable: 'NODE_ENV', problem: `${cfg.env} mode: built-in credentials key, webhooks to private addresses; never for real data` });
  if (!cfg.credentialsKey)
    findings.push({
      variable: 'CREDENTIALS_KEY',
      problem: 'not set: credentials cannot be sealed, and the processes refuse to start (openssl rand -base64 32)',
    });
  else if (cfg.credentialsKey.builtIn)
    findings.push({
      variable: 'CREDENTIALS_KEY',
      problem: `${cfg.env === 'production' ? 'the published' : 'not set: credentials are sealed with the published'} ${cfg.credentialsKey.builtIn} key${cfg.env === 'production' ? ': anyone can open the credentials, and the processes refuse to start' : ''}`,
    });
  if (cfg.webhookAllowPrivateHosts)
    findings.push({ variable: 'WEBHOOK_ALLOW_PRIVATE_HOSTS', problem: "sellers' webhooks may reach loopback and private addresses of this network" });
  const everyone = cfg.trustedProxies.find(trustsEveryone);
  if (everyone) findings.push({ variable: 'TRUSTED_PROXIES', problem: `${everyone} trusts X-Forwarded-For from anyone: clients choose their own address` });
  if (cfg.operatorPassword !== '' && cfg.operatorPassword.length < 16)
    findings.push({ variable: 'OPERATOR_PASSWORD', problem: 'shorter than 16 characters (or leave it empty to turn /operator/ off)' });
  const publicUrl = new URL(cfg.publicUrl);
  if (publicUrl.protocol !== 'https:' && !loopbackHost(publicUrl.hostname))
    findings.push({ variable: 'PUBLIC_URL', problem: `${publicUrl.origin} is not https: tokens and passwords would cross the network in clear` });
  const smtp = new URL(cfg.smtpUrl);
  if (cfg.env === 'production' && loopbackHost(smtp.hostname) && smtp.port === '1025')
    findings.push({ variable: 'SMTP_URL', problem: "the development mail catcher's address: set the real SMTP server" });
  return findings;
}

/**
 * The settings that open the service to anyone and so stop a production process unless the
 * operator accepts them by name in ACCEPT_UNSAFE_SETTINGS (decision): a warn line and `kontor
 * doctor` alone let a copied development or staging variable go live unnoticed.
 * - WEBHOOK_ALLOW_PRIVATE_HOSTS: every seller (a tenant) may point an event handler's webhook at
 *   loopback, this network or the cloud's metadata address (SSRF). A single-seller installation
 *   whose receiver sits in its own network may want it: then it says so.
 * - TRUSTED_PROXIES of 0.0.0.0/0 or ::/0: every client chooses its address by X-Forwarded-For, so
 *   the per-address login and client throttles count nothing (req.ip is the left-most entry, the
 *   client's own, even behind a real proxy); the proxy's own addresses or ranges are always possible.
 * Other findings (PUBLIC_URL over http, a short OPERATOR_PASSWORD, the mail catcher) stay warnings:
 * each has a use on a private test host and none hands other tenants the network.
 */
function unacceptedOpenings(cfg: Config): { variable: string; problem: string }[] {
  if (cfg.env !== 'production') return [];
  const everyone = cfg.trustedProxies.find(trustsEveryone);
  return [
    ...(cfg.webhookAllowPrivateHosts
      ? [{ variable: 'WEBHOOK_ALLOW_PRIVATE_HOSTS', problem: "lets every seller's webhooks reach loopback and private addresses of this network" }]
      : []),
    ...(everyone
      ? [
          {
            variable: 'TRUSTED_PROXIES',
            problem: `${everyone} lets every client choose its address by X-Forwarded-For (the login throttles then count nothing)`,
          },
        ]
      : []),
  ].filter((f) => !(cfg.acceptedUnsafeSettings as string[]).includes(f.variable));
}

/**
 * Why a process of the Procfile must not start, or undefined: in production every process needs
 * CREDENTIALS_KEY (the workers open credentials, the web process and the CLI seal them); without
 * it a deployment would either fail on the first credential or, as before, seal with a published key.
 * Then the settings that open the service (unacceptedOpenings), unless ACCEPT_UNSAFE_SETTINGS names them.
 */
export function startRefusal(cfg: Config, processName: string): string | undefined {
  const key = keyRefusal(cfg, processName);
  if (key) return key;
  const [opening] = unacceptedOpenings(cfg);
  if (!opening) return undefined;
  return (
    `kontor ${processName}: ${opening.variable} ${opening.problem}; production processes refuse to start with it. ` +
    `Remove it, or accept it by setting ACCEPT_UNSAFE_SETTINGS=${opening.variable} (a comma-separated list) in every process.`
  );
}

function keyRefusal(cfg: Config, processName: string): string | undefined {
  // A published key (the development or test mode's, set as CREDENTIALS_KEY) seals nothing: refused as a missing one.
  if (cfg.credentialsKey?.builtIn && cfg.env === 'production') {
    return (
      `kontor ${processName}: CREDENTIALS_KEY is the published ${cfg.credentialsKey.builtIn} key; production processes refuse to start with it. ` +
      'Set CREDENTIALS_KEY to 32 random bytes, base64 (openssl rand -base64 32), the same in every process, and run kontor credentials reseal ' +
      `with the published key in CREDENTIALS_OLD_KEYS.`
    );
  }
  if (cfg.credentialsKey) return undefined;
  return (
    `kontor ${processName}: CREDENTIALS_KEY is not set; production processes refuse to start without it. ` +
    'Set CREDENTIALS_KEY to 32 random bytes, base64 (openssl rand -base64 32), the same in every process; ' +
    'on a developer machine use npm start (NODE_ENV=development).'
  );
}

/** The lines a process logs at start: one per unsafe setting (the mode is logged where it is chosen). */
export function unsafeLines(cfg: Config): string[] {
  return unsafeSettings(cfg)
    .filter((f) => f.variable !== 'NODE_ENV')
    .map((f) => `unsafe setting ${f.variable}: ${f.problem}`);
}

/**
 * What a process outside production says of its mode when npm start did not say it for the tree:
 * what the mode opens (a published key, webhooks to private addresses), or undefined.
 */
export function modeLine(cfg: Config): string | undefined {
  if (cfg.env === 'production' || cfg.processName !== undefined) return undefined;
  const opened = [
    ...(cfg.credentialsKey?.builtIn ? [`credentials are sealed with the published ${cfg.credentialsKey.builtIn} key`] : []),
    ...(cfg.webhookAllowPrivateHosts ? ["sellers' webhooks may reach loopback and private addresses"] : []),
  ];
  return `NODE_ENV=${cfg.env}: ${[...opened, 'never for real data'].join('; ')} (production: NODE_ENV unset or production, with CREDENTIALS_KEY)`;
}

/**
 * The start of a Procfile process: exits with 78 (EX_CONFIG) and one line naming CREDENTIALS_KEY
 * when it is missing, or the unsafe setting not accepted (startRefusal); else, in production, hands each unsafe setting to warn (the process's
 * logger). In development and test mode the mode itself is the warning: said once by npm start for
 * its children (which it gives KONTOR_PROCESS), and by each process started any other way, as a
 * platform would start one whose NODE_ENV came from a developer's environment.
 */
export function guardProcessStart(cfg: Config, processName: string, warn: (line: string) => void): void {
  const refusal = startRefusal(cfg, processName);
  if (refusal) {
    process.stderr.write(`${refusal}\n`);
    process.exit(78);
  }
  if (cfg.env === 'production') for (const line of unsafeLines(cfg)) warn(line);
  const mode = modeLine(cfg);
  if (mode) warn(mode);
}
