/** Warning_type of document 1: something the request did that was taken, with a remark. */
export interface Warning {
  warning: string;
  description: string;
  code: number;
  field?: string;
}
