/** What a Listings Items submission answers (ListingsItemSubmissionResponse). */
export interface Submission {
  sku: string;
  status: string;
  issues?: { code: string; message: string; severity: string }[];
}

/** A submission's ERROR issues as one line (its status when it names none), or undefined when it was ACCEPTED without any. */
export function submissionErrors(answer: Submission): string | undefined {
  const errors = (answer.issues ?? []).filter((i) => i.severity === 'ERROR');
  if (answer.status === 'ACCEPTED' && errors.length === 0) return undefined;
  return errors.map((i) => `${i.code}: ${i.message}`).join('; ') || answer.status;
}
