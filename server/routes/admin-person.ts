import { endpoint, ok } from '../../lib/http';
import { personRepository } from '../../lib/account';
import { personToApi } from '../../lib/admin';

/** Administration (document 1, Admin): persons, read only (support creates them with kontor person create). */
export const adminPersonEndpoints = [
  endpoint({
    method: 'GET',
    path: 'admin/person/',
    summary: 'All persons (users) of the account.',
    scope: 'admin_r',
    response: ['person'],
    handle: async ({ caller }) => ok({ person: (await personRepository.list(caller.accountId)).map(personToApi) }),
  }),
];
