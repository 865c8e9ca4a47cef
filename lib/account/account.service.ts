import { db } from '../db/knex';
import { hashPassword } from '../auth/password';
import { portalAccountRepository } from '../portal-account/portal-account.repository';
import { accountRepository } from './account.repository';

export class LoginTakenError extends Error {}

/**
 * Creates a seller account with its default portal account (document 1: credentials are issued
 * once by support).
 */
export async function createSeller(login: string, password: string): Promise<{ id: number; login: string; portal_account_id: number }> {
  if (await accountRepository.findByLogin(login)) throw new LoginTakenError(`login ${login} exists already`);
  const passwordHash = await hashPassword(password);
  try {
    return await db().transaction(async (trx) => {
      const id = await accountRepository.insert(trx, login, passwordHash);
      const portalAccountId = await portalAccountRepository.insert(trx, id, { name: login, is_default: true });
      return { id, login, portal_account_id: portalAccountId };
    });
  } catch (err) {
    if ((err as { code?: string }).code === '23505') throw new LoginTakenError(`login ${login} exists already`);
    throw err;
  }
}
