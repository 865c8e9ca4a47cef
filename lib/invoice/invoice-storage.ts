/**
 * The archive of issued invoices behind one interface: a local folder (the default, for npm start
 * and the tests) or any S3 API through the AWS SDK v3 S3 client (production). Objects are written
 * once under keys that name their content (the invoice number and a hash of the bytes), so an
 * archived object is never overwritten with other bytes: a job run twice writes a second object
 * and only the one the invoice row names is ever served.
 */
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { GetObjectCommand, NoSuchKey, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';

export interface InvoiceStorage {
  /** Stores the bytes under the key (a key names its content: writing it twice writes the same bytes). */
  put(key: string, body: Uint8Array, contentType: string): Promise<void>;
  /** The bytes under the key, or undefined. */
  get(key: string): Promise<Buffer | undefined>;
  /** A URL that serves the object for `ttlSeconds` and then no more, downloading as `fileName`. */
  link(key: string, ttlSeconds: number, fileName: string, contentType: string, now?: Date): Promise<string>;
}

/** An archive key: `<account>/<invoice number>-<type>-<16 hex of the bytes' SHA-256>.<pdf|xml>`. */
export const keyPattern = /^\d{1,10}\/\d{1,19}-(380|381)-[0-9a-f]{16}\.(pdf|xml)$/;

export function archiveKey(accountId: number, invoiceNumber: string, typeCode: number, bytes: Uint8Array, extension: 'pdf' | 'xml'): string {
  const hash = crypto.createHash('sha256').update(bytes).digest('hex').slice(0, 16);
  return `${accountId}/${invoiceNumber}-${typeCode}-${hash}.${extension}`;
}

/**
 * A folder on this machine; its links point to GET /invoice-file/<key> of the web process
 * (server/routes/invoice-file.ts), signed with an HMAC of key, expiry, name and type.
 */
export class LocalFolderStorage implements InvoiceStorage {
  constructor(
    private readonly dir: string,
    private readonly publicUrl: string,
    private readonly secret: Buffer,
  ) {}

  private file(key: string): string {
    if (!keyPattern.test(key)) throw new Error(`not an invoice archive key: ${key}`);
    return path.join(path.resolve(this.dir), key);
  }

  async put(key: string, body: Uint8Array): Promise<void> {
    const file = this.file(key);
    await fs.mkdir(path.dirname(file), { recursive: true });
    // Written beside and renamed: a reader never sees half a file.
    const partial = `${file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.part`;
    await fs.writeFile(partial, body);
    await fs.rename(partial, file);
  }

  async get(key: string): Promise<Buffer | undefined> {
    try {
      return await fs.readFile(this.file(key));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  async link(key: string, ttlSeconds: number, fileName: string, contentType: string, now = new Date()): Promise<string> {
    const expires = String(Math.floor(now.getTime() / 1000) + ttlSeconds);
    const query = new URLSearchParams({ expires, name: fileName, type: contentType, signature: this.signature(key, expires, fileName, contentType) });
    return `${this.publicUrl.replace(/\/$/, '')}/invoice-file/${key}?${query.toString()}`;
  }

  /** Whether a link's parameters are ours and not expired. */
  verify(key: string, expires: string, fileName: string, contentType: string, signature: string, now = new Date()): boolean {
    if (!keyPattern.test(key) || !/^\d{1,12}$/.test(expires) || Number(expires) < now.getTime() / 1000) return false;
    const expected = Buffer.from(this.signature(key, expires, fileName, contentType));
    const given = Buffer.from(signature);
    return given.length === expected.length && crypto.timingSafeEqual(given, expected);
  }

  private signature(key: string, expires: string, fileName: string, contentType: string): string {
    return crypto.createHmac('sha256', this.secret).update([key, expires, fileName, contentType].join('\n')).digest('base64url');
  }
}

/** An S3 bucket (AWS or any S3 API); links are presigned GETs that expire. */
export class S3Storage implements InvoiceStorage {
  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
  ) {}

  async put(key: string, body: Uint8Array, contentType: string): Promise<void> {
    await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body, ContentType: contentType }));
  }

  async get(key: string): Promise<Buffer | undefined> {
    try {
      const res = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      return Buffer.from(await res.Body!.transformToByteArray());
    } catch (err) {
      if (err instanceof NoSuchKey || (err as { name?: string }).name === 'NoSuchKey') return undefined;
      throw err;
    }
  }

  async link(key: string, ttlSeconds: number, fileName: string, contentType: string): Promise<string> {
    const command = new GetObjectCommand({
      Bucket: this.bucket,
      Key: key,
      ResponseContentType: contentType,
      ResponseContentDisposition: `inline; filename="${fileName}"`,
    });
    return getSignedUrl(this.client, command, { expiresIn: ttlSeconds });
  }
}

/** The S3 client of a configuration: other S3 APIs than AWS take the endpoint and, mostly, path-style addressing. */
export function s3Client(options: {
  region: string;
  endpoint: string | null;
  forcePathStyle: boolean;
  credentials?: { accessKeyId: string; secretAccessKey: string };
}): S3Client {
  return new S3Client({
    region: options.region,
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    forcePathStyle: options.forcePathStyle,
    ...(options.credentials ? { credentials: options.credentials } : {}),
    // Checksums only where S3 requires them: other S3 APIs do not all take the SDK's default CRC32 trailers.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}
