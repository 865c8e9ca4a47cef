import { expect } from 'chai';
import { config, setConfig } from '../../config';
import { isGlobalUnicast } from '../../lib/event/webhook-host';
import { db } from '../../lib/db/knex';
import { call, newSeller, tokenFor } from '../support/api';

const exampleBody = {
  event_handler: {
    type: { id: 'created' },
    section: 'order',
    action: { id: 'notification', required: { url: 'https://receiver.example/hooks/kontor', format: 'post', target_name: 'erp' } },
  },
};

describe('event handlers (admin/event/handler/)', () => {
  it('when the shape existing clients send is posted, then 201 answers event_handler_id and the handler reads back', async () => {
    const seller = await newSeller();
    const res = await call('admin/event/handler/', { token: seller.token, body: exampleBody });
    expect(res.status, res.text).to.equal(201);
    expect(res.body.ack).to.equal('success');
    const id = res.body.event_handler_id as number;
    expect(id).to.be.a('number');
    expect(res.body.signing_secret).to.match(/^whsec_/);

    const one = await call(`admin/event/handler/${id}/`, { token: seller.token });
    expect(one.status).to.equal(200);
    const handler = one.body.event_handler as Record<string, unknown>;
    expect(handler).to.deep.include({
      id,
      type: { id: 'created' },
      section: 'order',
      action: { id: 'notification', required: { url: 'https://receiver.example/hooks/kontor', format: 'post', target_name: 'erp' } },
      condition: [],
      is_active: true,
      signing_secret: res.body.signing_secret,
    });
    expect(handler.modified).to.be.a('string');

    const all = await call('admin/event/handler/', { token: seller.token });
    expect((all.body.event_handler as { id: number }[]).map((h) => h.id)).to.deep.equal([id]);
    expect((all.body.event_handler as Record<string, unknown>[])[0]).to.not.have.key('signing_secret');
  });

  it('when the example handler is sent as XML, then it is created the same way', async () => {
    const seller = await newSeller();
    const xml =
      '<?xml version="1.0" encoding="UTF-8"?><request><event_handler><type><id>created</id></type><section>order</section>' +
      '<action><id>notification</id><required><url>https://receiver.example/hooks/kontor</url><format>post</format><target_name>erp</target_name></required></action>' +
      '</event_handler></request>';
    const res = await call('admin/event/handler/', {
      token: seller.token,
      body: xml,
      headers: { 'Content-Type': 'application/xml', Accept: 'application/json' },
    });
    expect(res.status, res.text).to.equal(201);
    const one = await call(`admin/event/handler/${res.body.event_handler_id}/`, { token: seller.token });
    expect((one.body.event_handler as { action: unknown }).action).to.deep.equal(exampleBody.event_handler.action);
  });

  it('when an = or != condition names a value no record can hold (a platform, currency, payment method or portal account an order refuses, a customer group document 2 lacks), then 400 names the value and nothing is stored', async () => {
    const seller = await newSeller();
    const other = await newSeller();
    const handler = (section: string, field: string, value: string, operator = '=') => ({
      event_handler: { ...exampleBody.event_handler, type: { id: 'created' }, section, condition: [{ field, operator, value }] },
    });
    const refused: [string, string, string, string, string][] = [
      ['order', 'platform', 'ebay', '=', 'invalid_field'],
      ['order', 'platform', 'Auction-A', '!=', 'invalid_field'],
      ['order', 'currency_id', 'XYZ', '=', 'unknown_currency'],
      ['order', 'payment_method_id', 'Cheque', '!=', 'unknown_payment_method'],
      ['order', 'portal_account_id', String(other.portalAccountId), '=', 'unknown_portal_account'],
      ['order', 'portal_account_id', 'first', '=', 'invalid_field'],
      ['customer', 'group_id', '7', '=', 'invalid_field'],
    ];
    for (const [section, field, value, operator, error] of refused) {
      const res = await call('admin/event/handler/', { token: seller.token, body: handler(section, field, value, operator) });
      expect(res.status, `${field} ${operator} ${value}: ${res.text}`).to.equal(400);
      expect(
        res.body.error!.map((e) => [e.error, e.field]),
        res.text,
      ).to.deep.equal([[error, 'event_handler.condition[0].value']]);
    }
    const [{ count }] = (await db()('event_handler').where({ account_id: seller.id }).count({ count: '*' })) as [{ count: string }];
    expect(Number(count)).to.equal(0);
    // The same values in an order are a 400 naming its field.
    for (const [field, value] of [
      ['platform', 'ebay'],
      ['currency_id', 'XYZ'],
      ['payment_method_id', 'Cheque'],
    ]) {
      const order = await call('order/', { token: seller.token, body: { order: { customer: { email: 'b@example.com' }, [field!]: value } } });
      expect([order.status, order.body.error?.[0]?.field], order.text).to.deep.equal([400, `order.${field!}`]);
    }

    // Values an order or customer can hold, and '' (no value), are taken.
    const taken: [string, string, string][] = [
      ['order', 'platform', 'auction_a'],
      ['order', 'platform', ''],
      ['order', 'currency_id', 'EUR'],
      ['order', 'currency_id', 'eur'],
      ['order', 'payment_method_id', 'COD'],
      // A condition compares case-insensitively, so these hold on auction_a and COD (found by a reviewer: a 400 after d6b3f6b7).
      ['order', 'platform', 'Auction_A'],
      ['order', 'payment_method_id', 'cod'],
      ['order', 'portal_account_id', String(seller.portalAccountId)],
      ['customer', 'group_id', '9'],
      ['customer', 'email', 'anyone@example.com'],
    ];
    for (const [section, field, value] of taken) {
      const res = await call('admin/event/handler/', { token: seller.token, body: handler(section, field, value, '!=') });
      expect(res.status, `${field} != ${value}: ${res.text}`).to.equal(201);
    }
  });

  it('when a handler with one condition is posted, then the condition is stored as given', async () => {
    const seller = await newSeller();
    const res = await call('admin/event/handler/', {
      token: seller.token,
      body: { event_handler: { ...exampleBody.event_handler, condition: [{ field: 'platform', operator: '!=', value: 'auction_a' }] } },
    });
    expect(res.status, res.text).to.equal(201);
    const one = await call(`admin/event/handler/${res.body.event_handler_id}/`, { token: seller.token });
    expect((one.body.event_handler as { condition: unknown }).condition).to.deep.equal([{ field: 'platform', operator: '!=', value: 'auction_a' }]);
  });

  it('when a handler definition is wrong, then 400 names what is wrong and nothing is stored', async () => {
    const seller = await newSeller();
    const base = exampleBody.event_handler;
    const cases: [Record<string, unknown>, string][] = [
      [{ ...base, type: { id: 'exploded' } }, 'event_handler.type.id'],
      [{ ...base, section: 'moon' }, 'event_handler.section'],
      [{ ...base, section: undefined }, 'event_handler.section'],
      [{ ...base, section: 'customer', type: { id: 'paid' } }, 'event_handler.type.id'],
      [{ ...base, action: { id: 'teleport', required: {} } }, 'event_handler.action.id'],
      [
        { ...base, action: { id: 'order_flag', required: { flag: 'is_packed', value: 'true' } }, section: 'customer', type: { id: 'created' } },
        'event_handler.action.id',
      ],
      [{ ...base, action: { id: 'notification', required: { url: 'https://x.example/', format: 'post' } } }, 'event_handler.action.required.target_name'],
      [
        { ...base, action: { id: 'notification', required: { url: 'https://x.example/', format: 'get', target_name: 'a' } } },
        'event_handler.action.required.format',
      ],
      [{ ...base, action: { id: 'notification', required: { url: 'not a url', format: 'post', target_name: 'a' } } }, 'event_handler.action.required.url'],
      [
        { ...base, action: { id: 'notification', required: { url: 'https://x.example/', format: 'post', target_name: 'a', colour: 'red' } } },
        'event_handler.action.required.colour',
      ],
      [{ ...base, action: { id: 'order_flag', required: { flag: 'is_paid', value: 'true' } } }, 'event_handler.action.required.flag'],
      // Names an object has from its prototype are no field or list key of the catalog.
      [
        { ...base, action: { id: 'notification', required: { url: 'https://x.example/', format: 'post', target_name: 'a', constructor: 'x' } } },
        'event_handler.action.required.constructor',
      ],
      [
        { ...base, action: { id: 'notification', required: { url: 'https://x.example/', format: 'toString', target_name: 'a' } } },
        'event_handler.action.required.format',
      ],
      [{ ...base, action: { id: 'order_flag', required: { flag: 'hasOwnProperty', value: 'true' } } }, 'event_handler.action.required.flag'],
      [{ ...base, action: { id: 'order_flag', required: { flag: 'is_packed', value: 'valueOf' } } }, 'event_handler.action.required.value'],
      [
        {
          ...base,
          condition: [
            { field: 'platform', value: 'a' },
            { field: 'currency_id', value: 'EUR' },
          ],
        },
        'event_handler.condition',
      ],
      [{ ...base, condition: [{ field: 'colour', operator: '=', value: 'red' }] }, 'event_handler.condition[0].field'],
      [{ ...base, condition: [{ field: 'platform', operator: '<', value: 'a' }] }, 'event_handler.condition[0].operator'],
      [{ ...base, condition: [{ field: 'invoice_amount', operator: '>', value: 'lots' }] }, 'event_handler.condition[0].value'],
      [{ ...base, condition: [{ field: 'platform', operator: '=' }] }, 'event_handler.condition[0].value'],
      [{ ...base, type: undefined }, 'event_handler.type'],
    ];
    for (const [handler, field] of cases) {
      const res = await call('admin/event/handler/', { token: seller.token, body: { event_handler: handler } });
      expect(res.status, `${field}: ${res.text}`).to.equal(400);
      expect(res.body.error![0]!.field, res.text).to.equal(field);
    }
    const [{ count }] = (await db()('event_handler').where({ account_id: seller.id }).count({ count: '*' })) as [{ count: string }];
    expect(Number(count)).to.equal(0);
  });

  it('when action.required is sent as a name/value list (documents 1 and 2), then the handler is created and reads back as the object; a name twice or a field missing is a 400 naming it', async () => {
    const seller = await newSeller();
    const asList = [
      { name: 'url', value: 'https://receiver.example/hooks/kontor' },
      { name: 'format', value: ['post'] },
      { name: 'target_name', value: 'erp' },
    ];
    const res = await call('admin/event/handler/', {
      token: seller.token,
      body: { event_handler: { ...exampleBody.event_handler, action: { id: 'notification', required: asList } } },
    });
    expect(res.status, res.text).to.equal(201);
    const one = await call(`admin/event/handler/${res.body.event_handler_id}/`, { token: seller.token });
    expect((one.body.event_handler as { action: unknown }).action).to.deep.equal(exampleBody.event_handler.action);

    const wrong: [unknown[], string][] = [
      [[...asList, { name: 'url', value: 'https://other.example/' }], 'event_handler.action.required'],
      [asList.slice(0, 2), 'event_handler.action.required.target_name'],
      [[...asList.slice(0, 2), { name: 'target_name', value: ['a', 'b'] }], 'event_handler.action.required'],
      [[...asList.slice(0, 2), { name: 'target_name', value: 'erp' }, { name: 'colour', value: 'red' }], 'event_handler.action.required.colour'],
    ];
    for (const [required, field] of wrong) {
      const bad = await call('admin/event/handler/', {
        token: seller.token,
        body: { event_handler: { ...exampleBody.event_handler, action: { id: 'notification', required } } },
      });
      expect(bad.status, bad.text).to.equal(400);
      expect(bad.body.error![0]!.field, bad.text).to.contain(field);
    }
    expect((await call('admin/event/handler/', { token: seller.token })).body.event_handler).to.have.length(1);
  });

  it('when optional fields are sent as null, then they count as not sent (as elsewhere in the API); a required one stays a 400 naming it', async () => {
    const seller = await newSeller();
    const base = exampleBody.event_handler;
    const made = async (handler: Record<string, unknown>) => {
      const res = await call('admin/event/handler/', { token: seller.token, body: { event_handler: handler } });
      expect(res.status, res.text).to.equal(201);
      return (await call(`admin/event/handler/${res.body.event_handler_id}/`, { token: seller.token })).body.event_handler as Record<string, unknown>;
    };
    expect(await made({ ...base, condition: null })).to.deep.include({ condition: [] });
    expect(await made({ ...base, section: null, type: { id: 'paid' } })).to.deep.include({ section: 'order', type: { id: 'paid' } });
    expect(await made({ ...base, condition: [{ field: 'invoice_amount', operator: null, value: 5 }] })).to.deep.include({
      condition: [{ field: 'invoice_amount', operator: '=', value: '5' }],
    });
    const wrong: [Record<string, unknown>, string][] = [
      [{ ...base, action: { id: 'notification', required: null } }, 'event_handler.action.required.url'],
      [{ ...base, condition: [{ field: 'invoice_amount', operator: '<', value: null }] }, 'event_handler.condition[0].value'],
      [{ ...base, type: null }, 'event_handler.type'],
    ];
    for (const [handler, field] of wrong) {
      const res = await call('admin/event/handler/', { token: seller.token, body: { event_handler: handler } });
      expect(res.status, res.text).to.equal(400);
      expect(res.body.error![0]!.field, res.text).to.equal(field);
    }
    expect((await call('admin/event/handler/', { token: seller.token })).body.event_handler).to.have.length(3);
  });

  it('when a stock condition names the item by a prefixed identifier (SKU_, EAN_ ...), then it is kept as the stock id it names; one naming no item of the seller is a 400', async () => {
    const seller = await newSeller();
    const other = await newSeller();
    const sku = `cup-${seller.id}`;
    const item = await call('stock/', { token: seller.token, body: { stock: { name: 'cup', sku, quantity: 3 } } });
    expect(item.status, item.text).to.equal(201);
    const theirs = await call('stock/', { token: other.token, body: { stock: { name: 'mug', sku: `mug-${other.id}` } } });
    const stockHandler = (value: unknown) => ({
      type: { id: 'cia' },
      section: 'stock',
      action: { id: 'notification', required: { url: 'https://receiver.example/stock', format: 'post', target_name: 'sync' } },
      condition: [{ field: 'stock_id', operator: '=', value }],
    });
    // Document 1: {stock_id} is an integer or a prefixed alternative identifier, valid everywhere a stock_id is accepted.
    for (const ref of [`SKU_${sku}`, `ID_${String(item.body.stock_id)}`]) {
      const res = await call('admin/event/handler/', { token: seller.token, body: { event_handler: stockHandler(ref) } });
      expect(res.status, res.text).to.equal(201);
      const read = (await call(`admin/event/handler/${res.body.event_handler_id}/`, { token: seller.token })).body.event_handler as { condition: unknown };
      expect(read.condition).to.deep.equal([{ field: 'stock_id', operator: '=', value: String(item.body.stock_id) }]);
    }
    for (const ref of ['SKU_nothing-here', `SKU_mug-${other.id}`, 'cup']) {
      const res = await call('admin/event/handler/', { token: seller.token, body: { event_handler: stockHandler(ref) } });
      expect(res.status, `${ref}: ${res.text}`).to.equal(400);
      expect(res.body.error![0]!.field).to.equal('event_handler.condition[0].value');
    }
    expect(theirs.status).to.equal(201);
    expect((await call('admin/event/handler/', { token: seller.token })).body.event_handler).to.have.length(2);
  });

  it("when a handler is deleted, then it is gone; another seller's handler answers 404 like an absent one", async () => {
    const seller = await newSeller();
    const other = await newSeller();
    const theirs = await call('admin/event/handler/', { token: other.token, body: exampleBody });
    const mine = await call('admin/event/handler/', { token: seller.token, body: exampleBody });
    for (const path of [`admin/event/handler/${theirs.body.event_handler_id}/`, 'admin/event/handler/2000000000/']) {
      expect((await call(path, { token: seller.token })).status).to.equal(404);
      expect((await call(path, { token: seller.token, method: 'DELETE' })).status).to.equal(404);
    }
    const del = await call(`admin/event/handler/${mine.body.event_handler_id}/`, { token: seller.token, method: 'DELETE' });
    expect(del.status).to.equal(200);
    expect((await call(`admin/event/handler/${mine.body.event_handler_id}/`, { token: seller.token })).status).to.equal(404);
    expect((await call(`admin/event/handler/${theirs.body.event_handler_id}/`, { token: other.token })).status).to.equal(200);
  });

  it('when handlers are written with a read-only token, then 403', async () => {
    const seller = await newSeller();
    const token = await tokenFor(seller.login, seller.password, 'admin_r');
    expect((await call('admin/event/handler/', { token, body: exampleBody })).status).to.equal(403);
    expect((await call('admin/event/handler/', { token })).status).to.equal(200);
  });

  it('when mail, order_flag and task handlers are posted with their required fields, then they are accepted', async () => {
    const seller = await newSeller();
    const bodies = [
      {
        type: { id: 'shipped' },
        section: 'order',
        action: { id: 'mail', required: { to: '{customer.email}', subject: 'Order {id} shipped', template: 'Hello, order {id} is on its way.' } },
      },
      { type: { id: 'paid' }, section: 'order', action: { id: 'order_flag', required: { flag: 'is_packed', value: true } } },
      {
        type: { id: 'cia' },
        section: 'stock',
        action: { id: 'task', required: { title: 'Reorder {stock_id}', text: 'Only {quantity} left', priority: 'high' } },
        condition: [{ field: 'quantity', operator: '<', value: 5 }],
      },
    ];
    for (const handler of bodies) {
      const res = await call('admin/event/handler/', { token: seller.token, body: { event_handler: handler } });
      expect(res.status, res.text).to.equal(201);
      expect(res.body).to.not.have.key('signing_secret');
    }
  });

  it('when private webhook hosts are not allowed (production), then a loopback or private url is refused naming the url', async () => {
    const seller = await newSeller();
    const original = config();
    setConfig({ ...original, webhookAllowPrivateHosts: false });
    try {
      for (const url of [
        'http://127.0.0.1:8080/hook',
        'http://localhost/hook',
        'https://10.1.2.3/hook',
        'http://[::1]/hook',
        'http://169.254.169.254/latest',
      ]) {
        const body = { event_handler: { ...exampleBody.event_handler, action: { id: 'notification', required: { url, format: 'post', target_name: 'x' } } } };
        const res = await call('admin/event/handler/', { token: seller.token, body });
        expect(res.status, url).to.equal(400);
        expect(res.body.error![0]!.field).to.equal('event_handler.action.required.url');
      }
      expect((await call('admin/event/handler/', { token: seller.token, body: exampleBody })).status).to.equal(201);
    } finally {
      setConfig(original);
    }
    expect(isGlobalUnicast('::ffff:127.0.0.1')).to.equal(false);
    expect(isGlobalUnicast('192.168.1.20')).to.equal(false);
    expect(isGlobalUnicast('93.184.216.34')).to.equal(true);
  });

  describe('a client filling the fields as system/event/action/ describes them', () => {
    interface Format {
      format: string;
      pattern: string;
      description: string;
    }
    interface Action {
      section: string;
      type: string[];
      action: string;
      required: Record<string, string | Record<string, string>>;
      required_format: Record<string, Format>;
    }
    const examples: Record<string, string> = { url: 'https://hooks.example.com/kontor', email: 'orders@shop.example' };
    const broken: Record<string, string> = { url: 'hooks.example.com/kontor', email: 'orders at shop.example' };

    async function actionList(token: string): Promise<Action[]> {
      const res = await call('system/event/action/', { token });
      expect(res.status, res.text).to.equal(200);
      return res.body.event_action as Action[];
    }

    /** A list field takes its first key, a field with a published format an example of it, any other field free text. */
    function fill(action: Action): Record<string, string> {
      return Object.fromEntries(
        Object.entries(action.required).map(([name, spec]) => {
          if (typeof spec === 'object') return [name, Object.keys(spec)[0]!];
          const format = action.required_format[name];
          if (!format) return [name, `free text for ${name}`];
          const value = examples[format.format]!;
          expect(new RegExp(format.pattern).test(value), `${format.pattern} ${value}`).to.equal(true);
          return [name, value];
        }),
      );
    }

    it('when every required field of every action is filled as the list says, then every handler is created (201)', async () => {
      const seller = await newSeller();
      // A literal recipient must be the account's own address (issue 31): the example is this seller's.
      await db()('account').where({ id: seller.id }).update({ email: examples.email });
      const actions = await actionList(seller.token);
      const formats = actions.flatMap((a) => Object.values(a.required_format).map((f) => f.format));
      expect(formats).to.include.members(['url', 'email']);
      let posted = 0;
      for (const action of actions) {
        for (const type of action.type) {
          const handler = { type: { id: type }, section: action.section, action: { id: action.action, required: fill(action) } };
          const res = await call('admin/event/handler/', { token: seller.token, body: { event_handler: handler } });
          expect(res.status, `${action.section} ${type} ${action.action}: ${res.text}`).to.equal(201);
          posted++;
        }
      }
      const all = await call('admin/event/handler/', { token: seller.token });
      expect(all.body.event_handler).to.have.length(posted);
    });

    it('when a value breaks the published format, then 400 names event_handler.action.required.<name> and nothing is stored', async () => {
      const seller = await newSeller();
      const actions = await actionList(seller.token);
      let checked = 0;
      for (const action of actions) {
        for (const [name, format] of Object.entries(action.required_format)) {
          const value = broken[format.format]!;
          expect(new RegExp(format.pattern).test(value), `${format.pattern} ${value}`).to.equal(false);
          const handler = {
            type: { id: action.type[0] },
            section: action.section,
            action: { id: action.action, required: { ...fill(action), [name]: value } },
          };
          const res = await call('admin/event/handler/', { token: seller.token, body: { event_handler: handler } });
          expect(res.status, res.text).to.equal(400);
          expect(res.body.error![0]!.field).to.equal(`event_handler.action.required.${name}`);
          checked++;
        }
      }
      expect(checked).to.be.greaterThan(1);
      const all = await call('admin/event/handler/', { token: seller.token });
      expect(all.body.event_handler).to.deep.equal([]);
    });

    it('when the mail recipient is a {field.path} of the record, then the published e-mail pattern takes it and the handler is created', async () => {
      const seller = await newSeller();
      const mail = (await actionList(seller.token)).find((a) => a.section === 'order' && a.action === 'mail')!;
      expect(new RegExp(mail.required_format.to!.pattern).test('{customer.email}')).to.equal(true);
      const handler = { type: { id: 'shipped' }, section: 'order', action: { id: 'mail', required: { ...fill(mail), to: '{customer.email}' } } };
      const res = await call('admin/event/handler/', { token: seller.token, body: { event_handler: handler } });
      expect(res.status, res.text).to.equal(201);
    });
  });
});
