/** POST order/{order_id}/send_mit/ as a client sends it, followed to its job's end. */
import { expect } from 'chai';
import { jobEnd } from '../fleet/support';
import { call } from '../support/api';

export interface SendMitResult {
  platform_status: string | null;
  shipment: { code: string | null; ok: boolean; error?: string }[];
}

/** Sends send_mit without the mail (unless asked), expects 202 and a completed job, and answers the job's result. */
export async function sendMitCompleted(seller: { token: string }, orderId: string, sendMit: Record<string, unknown>): Promise<SendMitResult> {
  const posted = await call(`order/${orderId}/send_mit/`, { token: seller.token, body: { send_mit: { is_mail: false, ...sendMit } } });
  expect(posted.status, posted.text).to.equal(202);
  const end = await jobEnd(seller.token, posted.body.job_id as string);
  expect(end.state, end.error).to.equal('completed');
  return end.result as SendMitResult;
}
