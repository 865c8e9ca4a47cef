/**
 * A seller whose login the operator disabled (`kontor user disable`, a leaked password) keeps its
 * event handlers, and they do not run: whoever held the password could have made them (a mail to
 * every buyer, a webhook elsewhere), and events of a disabled account still come (channel
 * imports, bank matches, CIA). Dispatch skips them and a run queued before skips as it starts;
 * `kontor user password` enables the login and the handlers again. README "Rights".
 */
import { accountRepository, isDisabledPasswordHash } from '../account';

export const loginDisabledReason = "the account's login is disabled (kontor user disable): its handlers do not run until a new password is set";

/** Whether the account's login is disabled. */
export async function loginDisabled(accountId: number): Promise<boolean> {
  const account = await accountRepository.get(accountId);
  return account !== undefined && isDisabledPasswordHash(account.password_hash);
}
