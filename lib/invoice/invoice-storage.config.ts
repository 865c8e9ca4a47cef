/** The archive this process uses, made once from config (tests put their own in place). */
import crypto from 'node:crypto';
import { config } from '../../config';
import { InvoiceStorage, LocalFolderStorage, S3Storage, s3Client } from './invoice-storage';

let current: InvoiceStorage | undefined;

/**
 * The secret local links are signed with: derived from the credentials key, so every process of
 * the installation signs alike (production has a key or does not start; config/safety.ts).
 */
function linkSecret(): Buffer {
  const key = config().credentialsKey?.key ?? crypto.randomBytes(32);
  return crypto.createHmac('sha256', key).update('kontor invoice links').digest();
}

/** INVOICE_STORAGE's archive: a folder (INVOICE_DIR) or an S3 bucket (INVOICE_S3_*). */
export function invoiceStorage(): InvoiceStorage {
  if (!current) {
    const { invoice, publicUrl } = config();
    current = invoice.storage === 's3' ? new S3Storage(s3Client(invoice.s3), invoice.s3.bucket) : new LocalFolderStorage(invoice.dir, publicUrl, linkSecret());
  }
  return current;
}

/** Replaces the archive (tests); undefined goes back to the configured one. */
export function setInvoiceStorage(storage: InvoiceStorage | undefined): void {
  current = storage;
}
