/**
 * A receiver behind HTTP Basic authentication, named in the handler's url as user:password@host
 * (RFC 3986 userinfo): the deliveries carry the credentials, and only the seller's own tokens
 * read the password back.
 */
import { expect } from 'chai';
import { call, newSeller } from '../support/api';
import { clientToken } from '../support/bound-client';
import { useEventsWorker } from './events-worker';
import { waitFor } from './servers';

const user = 'kontor';
const password = 's3cr@t/ü';
const expected = `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;

describe('webhooks to a receiver behind HTTP Basic authentication (events worker)', function () {
  this.timeout(60000);
  const setting = useEventsWorker('basic', {
    // As a reverse proxy with Basic authentication answers: 401 without the credentials.
    answer: (r) => (r.headers.authorization === expected ? { status: 204 } : { status: 401, headers: { 'WWW-Authenticate': 'Basic realm="erp"' } }),
    settings: () => ({ webhookRetryBaseMs: 50, webhookRetryMaxDelayMs: 200 }),
  });

  it('when the url names user:password@, then every delivery sends them as Basic credentials and is delivered; a third-party client reads the url without the password', async () => {
    const seller = await newSeller();
    const url = setting.receiver.base.replace('http://', `http://${user}:${encodeURIComponent(password)}@`) + `/hook/${seller.id}`;
    const made = await call('admin/event/handler/', {
      token: seller.token,
      body: {
        event_handler: { type: { id: 'created' }, section: 'order', action: { id: 'notification', required: { url, format: 'post', target_name: 'erp' } } },
      },
    });
    expect(made.status, made.text).to.equal(201);
    const id = made.body.event_handler_id as number;
    const order = await call('order/', { token: seller.token, body: { order: { customer: { email: 'buyer@example.com' } } } });
    expect(order.status, order.text).to.equal(201);

    const got = await waitFor(async () => setting.receiver.received.find((r) => r.path === `/hook/${seller.id}`), 'the notification');
    expect(got.headers.authorization).to.equal(expected);
    const delivery = await waitFor(async () => {
      const log = await call(`admin/event/handler/${id}/delivery/`, { token: seller.token });
      const first = (log.body.delivery as { state: string; attempt_count: number; attempt: { description: string }[] }[] | undefined)?.[0];
      return first && first.state !== 'pending' ? first : undefined;
    }, 'the delivery to end');
    expect(delivery).to.deep.include({ state: 'delivered', attempt_count: 1 });

    // The password is a credential like the signing secret: the seller's own tokens read it, a third-party client does not.
    const bySeller = (await call(`admin/event/handler/${id}/`, { token: seller.token })).body.event_handler as { action: { required: { url: string } } };
    expect(bySeller.action.required.url).to.equal(url);
    const client = await clientToken(seller, `basic-${seller.id}`, 'all', 'admin_r admin_w order_r order_w');
    const one = await call(`admin/event/handler/${id}/`, { token: client });
    const list = await call('admin/event/handler/', { token: client });
    for (const text of [one.text, list.text]) {
      expect(text).to.contain(`http://${user}:`);
      expect(text).to.not.contain(encodeURIComponent(password));
      expect(text).to.not.contain('s3cr');
    }
  });

  it('when a client posts back a handler read with the password masked (***), then 400 names the url instead of a handler whose deliveries could only be refused', async () => {
    const seller = await newSeller();
    const url = setting.receiver.base.replace('http://', `http://${user}:${encodeURIComponent(password)}@`) + `/hook/masked-${seller.id}`;
    const handler = { type: { id: 'created' }, section: 'order', action: { id: 'notification', required: { url, format: 'post', target_name: 'erp' } } };
    const made = await call('admin/event/handler/', { token: seller.token, body: { event_handler: handler } });
    expect(made.status, made.text).to.equal(201);
    // Document 1 has no update of a handler: to change one, a client creates it anew from what it read, and deletes the old one.
    const client = await clientToken(seller, `masked-${seller.id}`, 'all', 'admin_r admin_w order_r');
    const read = (await call(`admin/event/handler/${made.body.event_handler_id}/`, { token: client })).body.event_handler as Record<string, unknown>;
    for (const masked of [
      read,
      { ...handler, action: { ...handler.action, required: { ...handler.action.required, url: url.replace(encodeURIComponent(password), '%2A%2A%2A') } } },
    ]) {
      const again = await call('admin/event/handler/', { token: client, body: { event_handler: { ...masked, condition: [] } } });
      expect(again.status, again.text).to.equal(400);
      expect(again.body.error![0]!.field).to.equal('event_handler.action.required.url');
      expect(again.body.error![0]!.description).to.contain('***');
    }
    expect((await call('admin/event/handler/', { token: seller.token })).body.event_handler).to.have.length(1);
  });
});
