/**
 * Invoices (lib/invoice, issue 35): where issued PDFs and XMLs are archived and how long a
 * download link lives. Development and tests keep them in a folder; production names an S3 bucket
 * (any S3 API: AWS, or another through INVOICE_S3_ENDPOINT). The S3 credentials are the AWS SDK's
 * own chain (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, a profile, an instance role): never a
 * key of ours.
 */
import Joi from 'joi';

export interface InvoiceConfig {
  /** INVOICE_STORAGE: local (a folder, the default, for npm start) or s3. */
  storage: 'local' | 's3';
  /** INVOICE_DIR: the folder of the local storage (default tmp/invoices under the working directory). */
  dir: string;
  /** INVOICE_S3_BUCKET, INVOICE_S3_REGION (default eu-central-1), INVOICE_S3_ENDPOINT (null: AWS), INVOICE_S3_FORCE_PATH_STYLE (default false). */
  s3: { bucket: string; region: string; endpoint: string | null; forcePathStyle: boolean };
  /** INVOICE_URL_TTL_SECONDS: how long a download link of GET order/{order_id}/invoice/ stays valid (default 300). */
  urlTtlSeconds: number;
  /** INVOICE_ICC_PROFILE: the sRGB profile of the PDF/A OutputIntent (default Debian's icc-profiles-free). */
  iccProfile: string;
}

export const invoiceSchema = {
  INVOICE_STORAGE: Joi.string().valid('local', 's3').default('local'),
  INVOICE_DIR: Joi.string().default('tmp/invoices'),
  INVOICE_S3_BUCKET: Joi.string()
    .pattern(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/)
    .when('INVOICE_STORAGE', { is: 's3', then: Joi.required() }),
  INVOICE_S3_REGION: Joi.string().default('eu-central-1'),
  INVOICE_S3_ENDPOINT: Joi.string().uri({ scheme: ['http', 'https'] }),
  INVOICE_S3_FORCE_PATH_STYLE: Joi.boolean().default(false),
  INVOICE_URL_TTL_SECONDS: Joi.number().integer().min(10).max(604800).default(300),
  INVOICE_ICC_PROFILE: Joi.string().default('/usr/share/color/icc/sRGB.icc'),
};

/** The invoice settings of a validated environment. */
export function invoiceConfig(value: Record<string, unknown>): InvoiceConfig {
  return {
    storage: value.INVOICE_STORAGE as InvoiceConfig['storage'],
    dir: value.INVOICE_DIR as string,
    s3: {
      bucket: (value.INVOICE_S3_BUCKET as string | undefined) ?? '',
      region: value.INVOICE_S3_REGION as string,
      endpoint: (value.INVOICE_S3_ENDPOINT as string | undefined) ?? null,
      forcePathStyle: value.INVOICE_S3_FORCE_PATH_STYLE as boolean,
    },
    urlTtlSeconds: value.INVOICE_URL_TTL_SECONDS as number,
    iccProfile: value.INVOICE_ICC_PROFILE as string,
  };
}
