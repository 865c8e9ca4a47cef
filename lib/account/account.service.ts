import { db } from '../db';
import { personRepository } from './person.repository';
import { hashPassword } from './password';
import { portalAccountRepository } from '../portal-account';
import { accountRepository } from './account.repository';

export class LoginTakenError extends Error {}

/**
 * Creates a seller account with its default portal account and its own user as a person, named
 * after the login, so tasks can be assigned to it at once (document 1: credentials are issued
 * once by support; admin/person/ lists all users).
 */
export async function createSeller(login: string, password: string): Promise<{ id: number; login: string; portal_account_id: number }> {
  if (await accountRepository.findByLogin(login)) throw new LoginTakenError(`login ${login} exists already`);
  const passwordHash = await hashPassword(password);
  try {
    return await db().transaction(async (trx) => {
      const id = await accountRepository.insert(trx, login, passwordHash);
      const portalAccountId = await portalAccountRepository.insert(trx, id, { name: login, is_default: true });
      await personRepository.insert(trx, id, login);
      return { id, login, portal_account_id: portalAccountId };
    });
  } catch (err) {
    if ((err as { code?: string }).code === '23505') throw new LoginTakenError(`login ${login} exists already`);
    throw err;
  }
}
