import type { DomainError } from '../../lib/errors';

/** The domain error a promise is rejected with; a promise that resolves fails the test. */
export async function failure(promise: Promise<unknown>): Promise<DomainError> {
  try {
    await promise;
  } catch (err) {
    return err as DomainError;
  }
  throw new Error('expected a failure');
}
