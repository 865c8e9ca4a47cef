/**
 * Issue 35, point 3: the archive on an S3 API through the AWS SDK's S3 client, against s3rver
 * (npm), started here on a free port. s3rver speaks the S3 REST API the SDK uses (path-style
 * PutObject, GetObject with response-header overrides, presigned GETs and their expiry, access
 * key ids), but does not verify Signature V4 itself (it accepts any V4 signature of a known key):
 * a tampered link is not caught here, only by a real S3 (lib/invoice/README.md).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import S3rver from 's3rver';
import { db } from '../../lib/db/knex';
import { archiveKey, invoiceProcessors, readFacturx, S3Storage, s3Client, setInvoiceStorage } from '../../lib/invoice';
import { apiBase, call, newSeller } from '../support/api';
import { startQueueWorker } from '../support/queue-worker';
import { waitFor } from '../event/servers';

describe('invoices: the archive on S3 (s3rver) (issue 35)', function () {
  this.timeout(60000);
  let server: S3rver;
  let endpoint: string;
  let dir: string;
  const bucket = 'kontor-invoices';
  const credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
  const storage = () => new S3Storage(s3Client({ region: 'eu-central-1', endpoint, forcePathStyle: true, credentials }), bucket);

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kontor-s3rver-'));
    server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: dir, configureBuckets: [{ name: bucket, configs: [] }] });
    const { port } = await server.run();
    endpoint = `http://127.0.0.1:${port}`;
  });

  after(async () => {
    await server?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('when an invoice is stored, then it reads back, its presigned link serves it with our type and name, and the link stops working when it expires', async () => {
    const s3 = storage();
    const bytes = crypto.randomBytes(2048);
    const key = archiveKey(7, '1001', 380, bytes, 'pdf');
    await s3.put(key, bytes, 'application/pdf');
    expect((await s3.get(key))!.equals(bytes)).to.equal(true);
    expect(await s3.get(archiveKey(7, '1002', 380, bytes, 'pdf'))).to.equal(undefined);
    const link = await s3.link(key, 60, 'invoice-1001.pdf', 'application/pdf');
    expect(link.startsWith(`${endpoint}/${bucket}/${key}?`)).to.equal(true);
    const res = await fetch(link);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('application/pdf');
    expect(res.headers.get('content-disposition')).to.equal('inline; filename="invoice-1001.pdf"');
    expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).to.equal(true);
    const short = await s3.link(key, 1, 'invoice-1001.pdf', 'application/pdf');
    await new Promise((resolve) => setTimeout(resolve, 2100));
    expect((await fetch(short)).status).to.equal(403);
  });

  it('when the client names an access key the store does not know, then the write is refused', async () => {
    const wrong = new S3Storage(
      s3Client({ region: 'eu-central-1', endpoint, forcePathStyle: true, credentials: { accessKeyId: 'NOT-A-KEY', secretAccessKey: 'S3RVER' } }),
      bucket,
    );
    const refused = await wrong.put('7/1-380-0000000000000000.pdf', Buffer.from('x'), 'application/pdf').then(
      () => 'stored',
      (err: Error) => err.name,
    );
    expect(refused).to.equal('InvalidAccessKeyId');
  });

  it('when an order is paid with the S3 archive configured, then GET order/{order_id}/invoice/ redirects to a presigned S3 link of its PDF', async () => {
    setInvoiceStorage(storage());
    const worker = await startQueueWorker('invoice', invoiceProcessors, 'invoice-s3');
    try {
      const seller = await newSeller();
      await db()('account')
        .where({ id: seller.id })
        .update({ address: JSON.stringify({ name: 'S3 Handel GmbH', street: 'Kai 1', zip: '20457', city: 'Hamburg', country_iso2: 'DE' }) });
      await call('admin/user/', { token: seller.token, body: { user: { settings: { invoice: { vat_id: 'DE987654321' } } } } });
      const created = await call('order/', {
        token: seller.token,
        body: {
          order: { customer: { email: 'b@example.com' }, status: { is_paid: true }, line: [{ id: 1, name: 'Tasse', quantity: 2, price: '5.95', tax: '19' }] },
        },
      });
      expect(created.status, created.text).to.equal(201);
      const id = created.body.order_id as string;
      await waitFor(
        async () => ((await call(`order/${id}/`, { token: seller.token })).body.order as { bill_url: string | null }).bill_url || undefined,
        `bill_url of ${id}`,
      );
      const res = await fetch(`${await apiBase()}/v1.1/order/${id}/invoice/`, { headers: { Authorization: `Bearer ${seller.token}` }, redirect: 'manual' });
      expect(res.status, await res.clone().text()).to.equal(302);
      const location = res.headers.get('location')!;
      expect(location.startsWith(`${endpoint}/${bucket}/${seller.id}/`)).to.equal(true);
      expect(location).to.contain('X-Amz-Signature=');
      const pdf = await fetch(location);
      expect(pdf.status).to.equal(200);
      const read = await readFacturx(Buffer.from(await pdf.arrayBuffer()));
      expect(read.invoice).to.include({ grandTotal: '11.90', taxTotal: '1.90', typeCode: '380' });
    } finally {
      await worker.stop();
      setInvoiceStorage(undefined);
    }
  });
});
