import { db } from '../db';
import { characters, validate } from '../http';
import { personRepository, PersonRow } from '../account';

/** Admin_person_type: id and display name, both read only through the API. */
export const personToApi = (row: PersonRow) => ({ id: row.id, name: row.name });

/** Creates a person of an account (kontor person create); the name is 1 to 255 characters. */
export async function createPerson(accountId: number, name: string): Promise<{ id: number; name: string }> {
  const valid = validate<string>(characters(255).trim().min(1), name, 'name');
  const id = await db().transaction((trx) => personRepository.insert(trx, accountId, valid));
  return { id, name: valid };
}
