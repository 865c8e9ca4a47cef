/**
 * GET /invoice-file/<account>/<file>?expires&name&type&signature: the download links that GET
 * order/{order_id}/invoice/ hands out when invoices are archived in a local folder (INVOICE_STORAGE
 * local, npm start). Outside the API and its envelope: it answers the file itself, and only for a
 * link we signed that has not expired (a wrong or old link is a 404 like an absent file). With S3
 * the links are S3's own presigned URLs and this route serves nothing.
 */
import express, { Request, Response } from 'express';
import { domainError } from '../../lib/errors';
import { invoiceStorage, LocalFolderStorage } from '../../lib/invoice';
import { sendError } from '../framework/respond';

const contentTypes = new Set(['application/pdf', 'application/xml']);
const query = (req: Request, name: string) => (typeof req.query[name] === 'string' ? (req.query[name] as string) : '');

export function invoiceFileRouter(): express.Router {
  const router = express.Router();
  router.get('/:account/:file', async (req: Request, res: Response) => {
    const refuse = () => sendError(req, res, domainError('not_found', 'this invoice link does not exist or has expired'));
    const storage = invoiceStorage();
    const key = `${String(req.params.account)}/${String(req.params.file)}`;
    const [expires, name, type, signature] = ['expires', 'name', 'type', 'signature'].map((n) => query(req, n)) as [string, string, string, string];
    if (!(storage instanceof LocalFolderStorage) || !contentTypes.has(type) || !/^[\w.-]{1,100}$/.test(name)) return refuse();
    if (!storage.verify(key, expires, name, type, signature)) return refuse();
    try {
      const bytes = await storage.get(key);
      if (!bytes) return refuse();
      res
        .status(200)
        .set({
          'Content-Type': type,
          'Content-Disposition': `inline; filename="${name}"`,
          'Cache-Control': 'private, no-store',
          'X-Content-Type-Options': 'nosniff',
        })
        .send(bytes);
    } catch (err) {
      req.context.log.error({ err }, 'invoice file could not be read');
      sendError(req, res, domainError('internal_error', 'the invoice could not be read; it has been logged'));
    }
  });
  return router;
}
