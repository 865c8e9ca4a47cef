/**
 * stock/{stock_id}/description/: descriptions of the item a path names. A write resolves the
 * item in its own transaction, opened with the request's id (a COMMIT whose answer is lost can be
 * asked after: lib/db transaction); icon_id is checked before the transaction opens.
 */
import type { AccountWork } from '../access';
import { transaction } from '../db';
import { checkIcon, DescriptionInput, stockDescriptionRepository } from './stock-description';
import { resolvePathStockId } from './stock.service';

export async function listDescriptions(accountId: number, ref: string): Promise<Record<string, unknown>[]> {
  return stockDescriptionRepository.list(accountId, await resolvePathStockId(accountId, ref));
}

export async function readDescription(accountId: number, ref: string, id: number): Promise<Record<string, unknown>> {
  return stockDescriptionRepository.get(accountId, await resolvePathStockId(accountId, ref), id);
}

/** Answers the new description's id. */
export async function createDescription({ accountId, requestId }: AccountWork, ref: string, input: DescriptionInput): Promise<number> {
  await checkIcon(input);
  return transaction(async (trx) => {
    const stockId = await resolvePathStockId(accountId, ref, trx);
    return stockDescriptionRepository.insert(trx, accountId, stockId, input);
  }, requestId);
}

export async function updateDescription({ accountId, requestId }: AccountWork, ref: string, id: number, input: DescriptionInput): Promise<void> {
  await checkIcon(input);
  await transaction(async (trx) => {
    const stockId = await resolvePathStockId(accountId, ref, trx);
    await stockDescriptionRepository.update(trx, accountId, stockId, id, input);
  }, requestId);
}

export async function deleteDescription({ accountId, requestId }: AccountWork, ref: string, id: number): Promise<void> {
  await transaction(async (trx) => {
    const stockId = await resolvePathStockId(accountId, ref, trx);
    await stockDescriptionRepository.delete(trx, accountId, stockId, id);
  }, requestId);
}
