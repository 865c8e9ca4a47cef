/** Warning_type of document 1: something the request did that was taken, with a remark. */
export interface Warning {
  warning: string;
  description: string;
  /** The answer's status: server/framework/respond.ts sets it on every answer, whatever is given here. */
  code: number;
  field?: string;
}
