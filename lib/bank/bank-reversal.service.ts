/**
 * A statement's reversals of credits (MT940 RC, CAMT DBIT with RvslInd: the bank takes back a
 * credit it booked, a booking error, a recalled or returned transfer), applied in the import's
 * transaction after its credits are stored (so a credit and its reversal in one file meet).
 *
 * The rule that ties a reversal to the transfer it reverses, strict so that no money comes off
 * the wrong order: a bank transfer of the same account (and bank account: IBAN where both tell
 * theirs, and the statement account a key of the reversal's format names), currency and amount,
 * not reversed yet,
 * booked on the reversal's day or in the REVERSAL_DAYS before it, and
 * - when the reversal carries a payer's reference (end-to-end id / EREF+, creditor reference):
 *   the transfer carries that reference too;
 * - when it carries none: the transfer has the same payer (a reversal naming none ties to
 *   nothing) and the same text.
 * Exactly one such transfer: it is the one. None, or several: the reversal is tied to nothing,
 * nothing is taken off any order, and the seller gets a task (never a guess).
 *
 * A tied transfer is marked reversed (`reversed_by` the reversal's key, status `reversed`): it
 * pays no order any more (the matching skips it). When it had paid an order, the payment comes
 * off that order (lib/order takeBackPaymentsIn: paid_amount lowered, never below 0, the paid
 * state by the orders' rules, a history entry), and the seller gets a task when that order was
 * shipped already. A reversal applied once (its key on a transfer) is skipped: a re-import takes
 * nothing back twice; a task is given once per reversal (its key).
 *
 * A reversal no transfer fits yet is kept (bank_reversal_pending) when it names a payer or a
 * reference, and tried again at every later import that brings a credit of its amount: the
 * statements imported out of order (the reversal's first) tie the credit when it is stored, in
 * the same transaction, before its bank.match job runs, so it pays no order. Only credits booked
 * on the reversal's day or before it fit (the rule above), so a buyer's new payment after the
 * reversal is never taken for the reversed one. Only an import under every portal account's
 * grant keeps one (see the end of applyReversalsIn).
 *
 * A client bound to a portal account reverses only transfers it sees (stored under its grant or
 * assigned to its orders) and takes back only from its orders, and only where exactly one of all
 * the seller's transfers fits (ambiguity is the seller's, whoever imports); a kept reversal it
 * cannot judge so stays kept, untouched.
 */
import type { Knex } from 'knex';
import { grantOf, OrderScope } from '../access';
import { takeBackPaymentsIn } from '../order';
import { insertTaskOnce, TaskInput } from '../task';
import { handBookedOrdersOf } from './bank.match';
import { bankRepository, PendingReversalRow } from './bank.repository';
import { accountOfKey, acrossFormatsOf, foldedText, formatOfKey, ibanOfKey, tiedAcrossFormats } from './statement/entry-key';
import type { StatementEntry } from './statement/statement.type';

/**
 * How far back a reversal looks for its credit: a SEPA credit transfer may be recalled for fraud
 * up to 13 months after it was booked (SEPA SCT rulebook, recall reason FRAD); our choice: 400 days.
 */
const REVERSAL_DAYS = 400;

export interface ReversalsApplied {
  /** Reversals that took back a transfer now (marked it reversed, and its payment off its order). */
  reversed: number;
  /** Reversals tied to no transfer (none or several fit): a task each. */
  untied: number;
}

const describe = (r: StatementEntry) =>
  `${r.amount} ${r.currency} on ${r.transferDate.toISOString().slice(0, 10)}${r.sender ? ` from ${r.sender}` : ''}${r.subject ? ` ("${r.subject}")` : ''}${
    r.payerReferences.length ? ` (reference ${r.payerReferences.join(', ')})` : ''
  }`;

/**
 * What the task of a reversal tied to nothing says of its keeping, as it is: kept (bank_reversal_pending)
 * only when it names a payer or a reference and the import sees every transfer (the end of
 * applyReversalsIn). A task that said "Kontor keeps the reversal" for one not kept left the
 * seller waiting for a tie that never came, while the credit, imported later, paid its order in
 * full.
 */
function keptSays(tiable: boolean, scope: OrderScope): string {
  const later = "a transfer it reverses that a later import brings pays its order: lower that order's paid_amount then.";
  if (!tiable) return `It names neither a payer nor a payer's reference, so Kontor does not keep it: ${later}`;
  if (scope.portalAccountGrant !== 'all')
    return `It was imported by a client bound to one portal account, so Kontor does not keep it (import the statement with access to all portal accounts for that): ${later}`;
  return 'Kontor keeps the reversal: a transfer it fits that a later import brings (a statement imported out of order) is taken as reversed and pays no order.';
}

/**
 * Whether the other statement format's record of this reversal took its transfer back already
 * (bankRepository.reversedAcrossFormats): a transfer of this account (its IBAN; a transfer of no
 * known account, booked by hand, when the reversal that took it back was of this account's
 * statement, its key's account), of the amount and currency, reversed by the other format's
 * reversal of this day, sharing one of its payer's references, or, where either side has none
 * (a transfer booked by hand has no field for one), of its payer and text.
 */
async function sameReversalApplied(trx: Knex.Transaction, accountId: number, reversal: StatementEntry): Promise<boolean> {
  const iban = acrossFormatsOf(reversal)?.iban;
  const format = formatOfKey(reversal.reference!.replace(/^reversal /, ''));
  if (!iban || !format) return false;
  const reversed = await bankRepository.reversedAcrossFormats(trx, accountId, {
    iban,
    otherFormat: format === 'mt940' ? 'camt' : 'mt940',
    amount: reversal.amount,
    currency: reversal.currency,
    day: reversal.transferDate,
  });
  const references = new Set(reversal.payerReferences);
  // Payer and text as the formats spell them (foldedText, as storing ties a credit across
  // formats): compared as written, the MT940's `Moeller` of the transfer was not the camt.053's
  // `Möller`, and the camt.053's copy of the reversal tied the payer's earlier equal rate.
  const [sender, subject] = [foldedText(reversal.sender), foldedText(reversal.subject)];
  return reversed.some((r) => {
    // A transfer of no known account (booked by hand, never claimed by a statement: it has no
    // IBAN) is this account's when the reversal that took it back was; before, only transfers
    // of a known IBAN were asked, and the other format's copy of a reversal that took a hand
    // booking back tied the payer's earlier equal rate (or was kept for one), taking it too.
    if (r.account_iban === null && ibanOfKey(r.reversed_by!) !== iban) return false;
    const own = r.payer_ref ? r.payer_ref.split(' ') : [];
    if (references.size && own.length) return own.some((ref) => references.has(ref));
    return foldedText(r.sender) === sender && foldedText(r.subject) === subject;
  });
}

/**
 * A kept reversal as the statement gave it, with its account's IBAN read from its key: without
 * it, the same reversal kept from the other format too was never found applied
 * (sameReversalApplied) once one of them had tied the credit, stayed kept, and tied the payer's
 * next equal payment imported later (a rate of an earlier day), taking a genuine payment.
 */
const entryOf = (row: PendingReversalRow): StatementEntry =>
  tiedAcrossFormats(
    {
      reference: row.key,
      transferDate: row.transfer_date,
      sender: row.sender,
      subject: row.subject,
      amount: row.amount,
      currency: row.currency_id,
      payerReferences: row.payer_ref ? row.payer_ref.split(' ') : [],
    },
    ibanOfKey(row.key),
    '',
  );

/**
 * The orders whose hand booking may be the money of the transfer (paid no order, locked for its
 * reversal): bank.match.ts handBookedOrdersOf, the orders the matching holds it as booked_by_hand
 * for (or would, for a credit not matched yet: one of this file, or tied by a kept reversal).
 */
async function handBookedOn(trx: Knex.Transaction, scope: OrderScope, number: string): Promise<string[]> {
  const [record] = await bankRepository.unassignedForUpdate(trx, { accountId: scope.accountId, from: Number(number), to: Number(number) }, 1);
  return record ? (await handBookedOrdersOf(trx, scope, record)).map((o) => o.id) : [];
}

/**
 * The seller's task when the bank reverses a credit whose money they may have booked by hand
 * (decision, lib/bank/README.md "A payment booked by hand on the order"): Kontor booked it on no
 * order, so nothing comes off one; the hand booking stays, since Kontor cannot know it was this
 * transfer's money (cash, another transfer), and the seller lowers paid_amount. Before, the
 * transfer was only marked reversed: the order read paid, and could be shipped unpaid.
 */
function handBookedTask(reversal: StatementEntry, transferId: string, orderIds: string[]): TaskInput {
  const orders = orderIds.length === 1 ? `order ${orderIds[0]!}` : `orders ${orderIds.join(', ')}`;
  return {
    title: `Bank reversal of transfer ${transferId}: money booked by hand on ${orders}`,
    text:
      `The bank reversed the transfer ${transferId} (${describe(reversal)}). Kontor booked it on no order (booked_by_hand): ` +
      `the money the seller set by hand as paid_amount on ${orders} may be it. Kontor did not change ${orderIds.length === 1 ? "that order's" : "those orders'"} paid_amount: ` +
      `it cannot know whether the hand booking was this transfer. If it was, the money is gone: lower paid_amount by ${reversal.amount} ${reversal.currency}, and do not ship the goods unpaid.`,
    priority: 'high',
    reference: { section: 'order', id: orderIds[0]! },
  };
}

/**
 * Applies the file's reversals, and the reversals kept from earlier imports that a credit of
 * `creditAmounts` (this file's) may fit, in the caller's transaction, which holds the account's
 * bank counter lock and has stored this file's credits. `handBooked`: the number of the transfer
 * a client books by hand (POST bank/transfer/, stored in this transaction), which a kept reversal
 * naming a payer's reference may tie by payer and text (bankRepository.reversalCandidates).
 */
export async function applyReversalsIn(
  trx: Knex.Transaction,
  scope: OrderScope,
  fileReversals: StatementEntry[],
  creditAmounts: string[] = [],
  handBooked: number | null = null,
): Promise<ReversalsApplied> {
  const { accountId } = scope;
  const result: ReversalsApplied = { reversed: 0, untied: 0 };
  const inFile = new Set(fileReversals.map((r) => r.reference!));
  const kept = (await bankRepository.pendingReversals(trx, accountId, [...new Set(creditAmounts)])).filter((r) => !inFile.has(r.key));
  const keptKeys = new Set(kept.map((r) => r.key));
  const bound = scope.portalAccountGrant !== 'all';
  // The older ones first: a reversal kept from before is tied before this file's own.
  const reversals = [...kept.map(entryOf), ...fileReversals];
  const tied: string[] = [];
  const waiting: StatementEntry[] = [];
  const applied = await bankRepository.appliedReversals(
    trx,
    accountId,
    reversals.map((r) => r.reference!),
  );
  // A task once per reversal (its key); the seller's own beside a bound client's gets `:seller`.
  const task = (reversal: StatementEntry, input: TaskInput, portalAccountId = grantOf(scope), suffix = '') =>
    insertTaskOnce(trx, accountId, { ...input, portalAccountId }, `bank.reversal:${accountId}:${reversal.reference!}${suffix}`);
  for (const reversal of reversals) {
    const key = reversal.reference!;
    // Applied by an earlier import, or the same booking again in this file (a statement repeated).
    if (applied.has(key)) {
      tied.push(key);
      continue;
    }
    applied.add(key);
    // Neither a payer's reference nor a payer: nothing ties it to one transfer but its amount.
    const tiable = reversal.payerReferences.length > 0 || reversal.sender !== '';
    // One account imported as MT940 and as camt.053 (bank-store.service.ts): the reversal the
    // other format booked on this day, applied already, is this one. Asked first: its transfer is
    // reversed, so the rule below would tie another fitting transfer (an earlier equal payment
    // of the payer) or keep it for a later one, taking a genuine payment off its order.
    if (tiable && (await sameReversalApplied(trx, accountId, reversal))) {
      tied.push(key);
      continue;
    }
    const candidates = !tiable
      ? []
      : await bankRepository.reversalCandidates(trx, scope, {
          amount: reversal.amount,
          currency: reversal.currency,
          day: reversal.transferDate,
          since: new Date(reversal.transferDate.getTime() - REVERSAL_DAYS * 86_400_000),
          references: reversal.payerReferences,
          sender: reversal.sender,
          subject: reversal.subject,
          iban: acrossFormatsOf(reversal)?.iban ?? null,
          keyAccount: accountOfKey(key),
          handBooked: handBooked === null ? null : String(handBooked),
        });
    // One of all the seller's transfers (reversalCandidates), and one the caller may take back.
    const one = candidates.length === 1 && candidates[0]!.seen ? candidates[0]!.number : undefined;
    // Locked, then read again: a matching run may have assigned it meanwhile (it holds the row until it commits).
    const original = one === undefined ? undefined : await bankRepository.lockForReversal(trx, accountId, one);
    if (one === undefined || !original || original.reversed_by !== null) {
      result.untied++;
      if (tiable) waiting.push(reversal);
      // A kept reversal a bound client cannot judge (several of the seller's transfers fit it, or
      // the one that does is beyond its grant) is neither taken nor dropped: it stays kept, for
      // an import or transfer that may tie it; the import that kept it gave the seller its task.
      if (bound && keptKeys.has(key)) continue;
      await task(reversal, {
        title: `Bank reversal of ${reversal.amount} ${reversal.currency} not tied to a transfer`,
        text:
          `The bank reversed (took back) a credit: ${describe(reversal)}. ` +
          // A bound client's task says no more than it may know: "several" would tell it of a transfer beyond its grant.
          `${bound ? 'No one transfer this client may take back fits it' : candidates.length > 1 ? 'Several transfers fit it' : 'No transfer of this account fits it'} (same amount and currency, and the same payer reference, or without one the same payer and text), ` +
          `so nothing was taken off any order. ${keptSays(tiable, scope)} ` +
          "If the transfer it reverses paid an order in Kontor already, lower that order's paid_amount.",
        priority: 'high',
        reference: { section: 'bank' },
      });
      continue;
    }
    const number = one;
    if (original.order_id !== null) {
      const outcome = (
        await takeBackPaymentsIn(trx, scope, [
          {
            key,
            orderId: original.order_id,
            amount: reversal.amount,
            currency: reversal.currency,
            history: `payment ${reversal.amount} reversed by the bank: bank transfer ${original.id} taken back`,
          },
        ])
      ).get(key);
      if (typeof outcome !== 'object') {
        // Not this caller's order (a client bound to another portal account), or gone: left to
        // an import that may change it; the transfer is not marked, so that one still applies it.
        result.untied++;
        waiting.push(reversal);
        // The order's currency changed after the payment (allowed before an order with money booked
        // kept its currency, lib/order/README.md): no import can apply it, whatever its access.
        const why =
          outcome === 'currency_mismatch'
            ? `that order is no longer in ${reversal.currency} (its currency was changed after the payment), so ${reversal.amount} ${reversal.currency} cannot be taken off it. Lower the order's paid_amount by hand`
            : "this import may not change that order. Import the statement with access to all portal accounts, or lower the order's paid_amount";
        const named: TaskInput = {
          title: `Bank reversal of transfer ${original.id} not applied to order ${original.order_id}`,
          text: `The bank reversed the transfer ${original.id} (${describe(reversal)}), which paid order ${original.order_id}; ${why}.`,
          priority: 'high',
          reference: { section: 'order', id: original.order_id },
        };
        // A bound client's import names only an order it sees ('order_missing' under its scope:
        // another portal account's, or gone). Its task is a bank task of its portal account, the
        // seller's names the order. Before, the one task named that order to the client, and as
        // an order task of an order beyond its grant it was hidden from the very client whose
        // reversal it was (GET task/), so the client never learnt its reversal was not applied.
        if (!bound || outcome !== 'order_missing') {
          await task(reversal, named);
          continue;
        }
        await task(reversal, {
          title: `Bank reversal of transfer ${original.id} not applied`,
          text: `The bank reversed the transfer ${original.id} (${describe(reversal)}), which paid an order this client may not change, so nothing was taken off it. The seller has a task naming the order.`,
          priority: 'high',
          reference: { section: 'bank' },
        });
        await task(reversal, named, null, ':seller');
        continue;
      }
      if (outcome.shipped) {
        await task(reversal, {
          title: `Payment of shipped order ${outcome.orderId} reversed by the bank`,
          text: `The bank reversed the transfer ${original.id} (${describe(reversal)}) that paid order ${outcome.orderId}; ${outcome.amount} ${reversal.currency} were taken off its paid_amount. The order was shipped already: the goods went without this money.`,
          priority: 'high',
          reference: { section: 'order', id: outcome.orderId },
        });
      }
    } else {
      const handBooked = await handBookedOn(trx, scope, number);
      if (handBooked.length) await task(reversal, handBookedTask(reversal, original.id, handBooked));
    }
    await bankRepository.markReversed(trx, accountId, number, key, reversal.transferDate);
    tied.push(key);
    result.reversed++;
  }
  await bankRepository.dropPendingReversals(trx, accountId, tied);
  // Kept only from an import that sees every transfer: a kept reversal is tried again under the
  // scope of whoever imports next (the seller too), so a bound client's file (which it may have
  // written itself) must not leave one behind to take money off orders beyond its grant.
  const keep = scope.portalAccountGrant === 'all' ? waiting : [];
  await bankRepository.keepPendingReversals(
    trx,
    keep.map((r) => ({
      account_id: accountId,
      key: r.reference!,
      transfer_date: r.transferDate,
      amount: r.amount,
      currency_id: r.currency,
      sender: r.sender,
      subject: r.subject,
      payer_ref: r.payerReferences.join(' '),
    })),
  );
  return result;
}
