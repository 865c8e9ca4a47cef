/**
 * Statements as a ZIP archive, the way German banks hand out camt.053 downloads (online banking's
 * "CAMT (ZIP)", EBICS C53: one XML per account and day in one archive).
 * Decision: an archive is read as the files it holds, each parsed as if posted alone and stored
 * together in the one transaction; directories and macOS's `__MACOSX/` resource forks are
 * skipped, any other entry must be a statement (a refusal names it), and an archive inside an
 * archive is refused. Bounded before anything is inflated: at most 500 files, and together no
 * more bytes than BODY_LIMIT_BYTES lets a file posted alone have (a few kilobytes of archive
 * cannot bring a parser more than one large file could), as the archive declares them; fflate
 * inflates each entry into a buffer of its declared size, so a lying header cannot make it grow.
 */
import { unzipSync } from 'fflate';
import { config } from '../../../config';
import { DomainError, invalidInput } from '../../errors';

const maxFiles = 500;

/** A local file header's signature: PK\x03\x04 (APPNOTE 4.3.7); an empty archive starts with its end record, PK\x05\x06. */
export const isZipArchive = (bytes: Buffer): boolean => bytes.length >= 4 && (bytes.readUInt32LE(0) === 0x04034b50 || bytes.readUInt32LE(0) === 0x06054b50);

const skipped = (name: string) => name.endsWith('/') || name.startsWith('__MACOSX/');

/** The statement files of an archive, in the archive's order; a 400 naming the body when it cannot be read or is too large. */
export function archiveFiles(bytes: Buffer): { name: string; bytes: Buffer }[] {
  let files = 0;
  let declared = 0;
  const maxBytes = config().bodyLimitBytes;
  let entries: Record<string, Uint8Array>;
  try {
    entries = unzipSync(bytes, {
      filter: (file) => {
        if (skipped(file.name)) return false;
        files += 1;
        declared += file.originalSize;
        if (files > maxFiles || declared > maxBytes)
          throw invalidInput(
            'malformed_statement',
            `the ZIP archive holds more than ${maxFiles} files or ${maxBytes} bytes (BODY_LIMIT_BYTES): post its statements in parts`,
            'body',
          );
        return true;
      },
    });
  } catch (err) {
    if (err instanceof DomainError) throw err;
    throw invalidInput('malformed_statement', `the ZIP archive cannot be read: ${(err as Error).message}`, 'body');
  }
  const named = Object.entries(entries).map(([name, data]) => ({ name, bytes: Buffer.from(data.buffer, data.byteOffset, data.byteLength) }));
  if (named.length === 0) throw invalidInput('malformed_statement', 'the ZIP archive holds no statement file', 'body');
  return named;
}
