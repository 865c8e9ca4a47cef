import type { Knex } from 'knex';

/**
 * MT940 records stored before a7bf4ba (Rabobank's `/TRCD/`, Knab's `/BBAN/`, ABN AMRO's `/NRTX/`,
 * `/PIND/`, `/RTYP/` not yet known tags of field 86) hold the tag and what follows it in their
 * end-to-end id and payer reference (`<id>/TRCD/541`). Left so, a camt.053 of the days such an
 * MT940 covered, imported after that commit (EndToEndId `<id>`), was still another payment,
 * stored and matched again (found by a reviewer of a7bf4ba). The tag and the rest of its token are
 * cut, as the reader now cuts them; running it again changes nothing. Written out here, not
 * imported: a migration does what it did when it ran, whatever the reader becomes.
 */
const tag = '/(TRCD|BBAN|NRTX|PIND|RTYP)/';

/** Cuts the tags from the MT940 records' end-to-end ids and payer references; answers the records changed. */
export async function backfillDutchTags(knex: Knex | Knex.Transaction): Promise<number> {
  const result = (await knex.raw(
    `UPDATE bank SET
       end_to_end_id = CASE WHEN end_to_end_id ~ ? THEN regexp_replace(end_to_end_id, ? || '.*$', '') ELSE end_to_end_id END,
       payer_ref = btrim(regexp_replace(regexp_replace(payer_ref, ? || '[^ ]*', '', 'g'), ' {2,}', ' ', 'g'))
     WHERE entry_ref LIKE 'mt940 %' AND (end_to_end_id ~ ? OR payer_ref ~ ?)`,
    [tag, tag, tag, tag, tag],
  )) as { rowCount: number };
  return result.rowCount;
}

export async function up(knex: Knex): Promise<void> {
  await backfillDutchTags(knex);
}

/** Nothing to undo: the cut text was never a reference of the payer's. */
export async function down(): Promise<void> {}
