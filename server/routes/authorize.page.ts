/**
 * The HTML of authorize.php: the sign-in and rights form (step 1), the portal account choice
 * (step 2) and the error page. One inline stylesheet (helmet's CSP allows inline styles, no
 * scripts are needed), no outside resources: the page works offline and leaks no visit to a CDN.
 */
import { scopes } from '../../lib/access';
import type { Scope } from '../../lib/access';
import type { AuthorizationRequest, ConsentStep } from '../../lib/auth';

const escape = (value: unknown) => String(value ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const style = `
*,*::before,*::after{box-sizing:border-box}
body{margin:0;background:#f3f5f8;color:#1d2633;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
main{max-width:30rem;margin:2rem auto;padding:0 1rem}
.brand{font-weight:700;letter-spacing:.02em;color:#2457c5;margin:0 0 1rem;font-size:1.1rem}
.card{background:#fff;border:1px solid #dde3ea;border-radius:12px;padding:1.5rem;box-shadow:0 1px 3px rgba(16,24,40,.06)}
h1{font-size:1.3rem;line-height:1.3;margin:0 0 .5rem}
p{margin:.5rem 0}
.muted{color:#5b6778;font-size:.92rem}
.host{font-weight:600;overflow-wrap:anywhere}
.granted{margin:.3rem 0 0;padding-left:1.2rem}
.granted li{margin:.15rem 0}
.signed{background:#f3f6fb;border-radius:8px;padding:.6rem .8rem;margin:1rem 0 0}
.alert{background:#fdecec;border:1px solid #f3b4b4;color:#8a1c1c;border-radius:8px;padding:.6rem .8rem;margin:1rem 0}
fieldset{border:0;margin:1.2rem 0 0;padding:0}
legend{font-weight:600;margin-bottom:.4rem;padding:0}
.option{display:flex;gap:.75rem;align-items:flex-start;padding:.65rem .75rem;border:1px solid #dde3ea;border-radius:8px;margin:.45rem 0;cursor:pointer}
.option:hover{border-color:#9fb4dd}
.option input{margin:.25rem 0 0;width:1.15rem;height:1.15rem;flex:none;accent-color:#2457c5}
.option strong{display:block;font-weight:600}
.option small{display:block;color:#5b6778;font-size:.88rem;line-height:1.4}
label.field{display:block;font-weight:600;margin:1rem 0 .3rem}
input[type=text],input[type=password]{width:100%;font:inherit;padding:.6rem .7rem;border:1px solid #b9c3cf;border-radius:8px;min-height:2.75rem}
input:focus-visible,button:focus-visible{outline:3px solid #9cb8f0;outline-offset:1px}
.actions{display:flex;gap:.75rem;margin-top:1.5rem;flex-wrap:wrap}
button{font:inherit;font-weight:600;border-radius:8px;padding:.65rem 1.2rem;min-height:2.75rem;cursor:pointer;flex:1 1 8rem}
.primary{background:#2457c5;color:#fff;border:1px solid #2457c5}
.primary:hover{background:#1d47a3}
.secondary{background:#fff;color:#1d2633;border:1px solid #b9c3cf}
footer{margin:1rem 0 2rem;text-align:center}
@media (max-width:480px){main{margin:1rem auto}.card{padding:1.1rem}h1{font-size:1.15rem}}
`;

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer"><title>${escape(title)}</title><style>${style}</style></head>
<body><main><p class="brand">Kontor</p><div class="card">${body}</div>
<footer class="muted">Only enter your password on the Kontor address you know.</footer></main></body></html>`;
}

const hostOf = (uri: string) => {
  try {
    return new URL(uri).host;
  } catch {
    return uri;
  }
};

function hidden(fields: Record<string, string>): string {
  return Object.entries(fields)
    .map(([name, value]) => `<input type="hidden" name="${escape(name)}" value="${escape(value)}">`)
    .join('');
}

function heading(request: AuthorizationRequest): string {
  return `<h1>${escape(request.client.name)} wants access to your Kontor account</h1>
<p class="muted">After you decide, you will be sent back to <span class="host">${escape(hostOf(request.redirectUri))}</span>.</p>`;
}

const alert = (message: string) => (message ? `<p class="alert" role="alert">${escape(message)}</p>` : '');

/** Step 1: login, password and the rights the client asked for, each with its title and description. */
export function signInPage(request: AuthorizationRequest, csrf: string, state: { ticked: Scope[]; login?: string; message?: string }): string {
  const boxes = request.requested
    .map(
      (s) => `<label class="option"><input type="checkbox" name="scope_item" value="${escape(s)}"${state.ticked.includes(s) ? ' checked' : ''}>
<span><strong>${escape(scopes[s].title)}</strong><small>${escape(scopes[s].description)}</small></span></label>`,
    )
    .join('\n');
  return layout(
    `Kontor: authorize ${request.client.name}`,
    `${heading(request)}${alert(state.message ?? '')}
<form method="post" autocomplete="on">${hidden({ ...request.params, csrf })}
<fieldset><legend>Rights you grant</legend>${boxes}</fieldset>
<label class="field" for="login">Login</label><input type="text" id="login" name="login" autocomplete="username" autocapitalize="none" spellcheck="false" value="${escape(state.login ?? '')}">
<label class="field" for="password">Password</label><input type="password" id="password" name="password" autocomplete="current-password"${state.login ? ' autofocus' : ''}>
<div class="actions"><button class="primary" type="submit" name="decision" value="allow">Continue</button>
<button class="secondary" type="submit" name="decision" value="deny">Deny</button></div>
</form>`,
  );
}

/** Step 2: signed in; the portal account the client may work with, or all of them. */
export function portalAccountPage(step: ConsentStep, csrf: string, message = ''): string {
  const { request } = step;
  const preselected = step.portalAccounts.find((p) => p.is_default)?.id ?? step.portalAccounts[0]?.id;
  const accounts = step.portalAccounts
    .map(
      (p) => `<label class="option"><input type="radio" name="portal_account" value="${p.id}"${p.id === preselected ? ' checked' : ''}>
<span><strong>${escape(p.name)}</strong><small>${escape([p.platform, p.is_default ? 'default portal account' : ''].filter(Boolean).join(' · ') || 'portal account')}</small></span></label>`,
    )
    .join('\n');
  const all = `<label class="option"><input type="radio" name="portal_account" value="all"${preselected === undefined ? ' checked' : ''}>
<span><strong>All portal accounts</strong><small>Orders of every portal account, also of those you add later.</small></span></label>`;
  const granted = step.scope.map((s) => `<li>${escape(scopes[s].title)}</li>`).join('');
  return layout(
    `Kontor: authorize ${request.client.name}`,
    `${heading(request)}${alert(message)}
<div class="signed"><p>Signed in as <strong>${escape(step.login)}</strong></p><p class="muted">Rights you grant:</p><ul class="granted">${granted}</ul></div>
<form method="post">${hidden({ consent: step.ticket, csrf })}
<fieldset><legend>Which orders may ${escape(request.client.name)} read and write?</legend>${accounts}${all}</fieldset>
<div class="actions"><button class="primary" type="submit" name="decision" value="allow">Allow</button>
<button class="secondary" type="submit" name="decision" value="deny">Deny</button></div>
</form>`,
  );
}

/** A request that cannot go back to the client: said here, and nothing else happens. */
export function errorPage(message: string): string {
  return layout('Kontor: authorization not possible', `<h1>This authorization cannot go on</h1>${alert(message)}<p class="muted">You may close this page.</p>`);
}
