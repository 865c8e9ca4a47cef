import type { Knex } from 'knex';
import { openCredentials, sealCredentials } from '../../secret';

/**
 * Security pass: a notification url's password (https://user:password@host/, sent as Basic
 * credentials) stood in clear in event_handler.required beside the sealed signing secret. It moves
 * into the sealed value (url_password, lib/event/signing-secret.ts), the url keeping the user name
 * alone; lib/event puts it back on every read. Row by row (at most EVENT_HANDLERS_PER_ACCOUNT a
 * seller), only rows whose secret is sealed (a secret still in clear keeps its url as it is: the
 * code reads both). The userinfo ends at the authority's last '@', as the URL parser reads it.
 */
const userinfo = /^([A-Za-z][A-Za-z0-9+.-]*:\/\/)([^/?#\\]*)@/;

interface Row {
  id: number;
  signing_secret: string;
  required: Record<string, unknown>;
}

async function rows(knex: Knex): Promise<Row[]> {
  return (await knex('event_handler')
    .select('id', 'signing_secret', 'required')
    .where('action', 'notification')
    .whereRaw("signing_secret LIKE 'kc_.%'")
    .whereRaw("required->>'url' LIKE '%@%'")) as Row[];
}

export async function up(knex: Knex): Promise<void> {
  for (const row of await rows(knex)) {
    const url = String(row.required.url);
    const match = userinfo.exec(url);
    const colon = match ? match[2]!.indexOf(':') : -1;
    if (!match || colon === -1) continue;
    const sealed = openCredentials('event_handler', row.signing_secret, row.id);
    const password = match[2]!.slice(colon + 1);
    const stripped = `${match[1]}${match[2]!.slice(0, colon)}@${url.slice(match[0].length)}`;
    await knex('event_handler')
      .where({ id: row.id, signing_secret: row.signing_secret })
      .update({
        signing_secret: sealCredentials('event_handler', { ...sealed, url_password: password }, row.id)!,
        required: JSON.stringify({ ...row.required, url: stripped }),
      });
  }
}

/** The passwords back into the urls, which the code before this migration reads. */
export async function down(knex: Knex): Promise<void> {
  for (const row of await rows(knex)) {
    const { url_password: password, ...rest } = openCredentials('event_handler', row.signing_secret, row.id);
    const url = String(row.required.url);
    const match = userinfo.exec(url);
    if (typeof password !== 'string' || !match || match[2]!.includes(':')) continue;
    await knex('event_handler')
      .where({ id: row.id, signing_secret: row.signing_secret })
      .update({
        signing_secret: sealCredentials('event_handler', rest, row.id)!,
        required: JSON.stringify({ ...row.required, url: `${match[1]}${match[2]}:${password}@${url.slice(match[0].length)}` }),
      });
  }
}
