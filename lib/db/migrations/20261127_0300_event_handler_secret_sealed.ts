import type { Knex } from 'knex';
import { openCredentials, sealCredentials } from '../../secret';

/**
 * Security review: webhook signing secrets sealed at rest. A notification handler's secret was
 * stored in clear in event_handler.signing_secret; it is sealed with the key configured when this
 * runs (CREDENTIALS_KEY, lib/secret) and bound to its row, as portal credentials are. Row by row
 * (at most EVENT_HANDLERS_PER_ACCOUNT a seller); a secret in clear starts with whsec_.
 */
async function rows(knex: Knex, sealed: boolean): Promise<{ id: number; signing_secret: string }[]> {
  return (await knex('event_handler')
    .select('id', 'signing_secret')
    .whereRaw(sealed ? "signing_secret LIKE 'kc_.%'" : "signing_secret LIKE 'whsec\\_%'")) as { id: number; signing_secret: string }[];
}

export async function up(knex: Knex): Promise<void> {
  for (const row of await rows(knex, false)) {
    const sealed = sealCredentials('event_handler', { signing_secret: row.signing_secret }, row.id);
    await knex('event_handler').where({ id: row.id, signing_secret: row.signing_secret }).update({ signing_secret: sealed! });
  }
}

/** Back to the secrets in clear, which the code before this migration reads. */
export async function down(knex: Knex): Promise<void> {
  for (const row of await rows(knex, true)) {
    const clear = String(openCredentials('event_handler', row.signing_secret, row.id).signing_secret);
    await knex('event_handler').where({ id: row.id }).update({ signing_secret: clear });
  }
}
