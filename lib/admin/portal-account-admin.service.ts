import { db } from '../db';
import { Joi, bool, characters, validate } from '../http';
import { portalAccountRepository, portalAccountRefRepository, portalAccountToApi } from '../portal-account';
import { portalIds } from '../portals';

const input = Joi.object({
  name: characters(255).trim().min(1).required(),
  platform: Joi.string().valid(...portalIds),
  is_default: bool().default(false),
});

/** Creates a portal account of a seller (kontor portal-account create); is_default moves the default to it. */
export async function createPortalAccount(accountId: number, fields: { name: string; platform?: string; is_default?: boolean | string }) {
  const valid = validate<{ name: string; platform?: string; is_default: boolean }>(input, fields);
  const id = await db().transaction(async (trx) => {
    if (valid.is_default) await portalAccountRefRepository.clearDefault(trx, accountId);
    return portalAccountRepository.insert(trx, accountId, { name: valid.name, platform: valid.platform ?? null, is_default: valid.is_default });
  });
  const row = await portalAccountRepository.get(accountId, id);
  return { ...portalAccountToApi(row!), platform: row!.platform, connector: row!.connector };
}
