/**
 * The integrator's script of lib/http/README.md (issue 36): a typed client generated from
 * {base_url}openapi.json (openapi-typescript's types, openapi-fetch's client) takes a token,
 * creates a stock item, creates an order of it and reads the order back. `npm run typecheck`
 * type-checks it against the generated types; test/client/client.test.ts runs it.
 */
import createClient from 'openapi-fetch';
import type { paths } from './kontor-api';

export interface IntegratorResult {
  stockId: string;
  orderId: string;
  order: NonNullable<paths['/order/{order_id}/']['get']['responses'][200]['content']['application/json']['order']>;
}

/**
 * Requests that leave out fields the service defaults (send_mit's is_mail and mail_text, a
 * condition's operator): they must type-check, as the service takes them (`npm run typecheck`).
 */
type Body<P extends keyof paths> = paths[P] extends { post: { requestBody?: { content: { 'application/json': infer B } } } } ? B : never;
export const defaultedFieldsLeftOut: [Body<'/order/{order_id}/send_mit/'>, Body<'/admin/event/handler/'>] = [
  { send_mit: { code: ['DHL 123'] } },
  { event_handler: { type: { id: 'created' }, section: 'order', action: { id: 'notification' }, condition: [{ field: 'order.platform', value: 'shop_g' }] } },
];

/**
 * The items of the bulk calls are typed (they were `unknown[]`): a new item, an update by id, and
 * a field the item type does not have refused by the compiler (`npm run typecheck`).
 */
export const bulkItemsTyped: [Body<'/stock/list/'>, Body<'/order/list/'>, Body<'/stock/list/'>] = [
  {
    stock: [
      { name: 'Enamel mug', quantity: 3 },
      { id: 'SKU_MUG-1', price: '4.50' },
    ],
  },
  {
    order: [
      { customer: { email: 'buyer@example.com' }, line: [{ id: 1, quantity: 1, price: '4.50' }] },
      { id: '7_2026_11', paid_amount: '4.50' },
    ],
  },
  // @ts-expect-error colour is no field of a stock item: the typed client says so before the service would
  { stock: [{ name: 'Enamel mug', colour: 'blue' }] },
];

export async function integrate(baseUrl: string, login: string, password: string): Promise<IntegratorResult> {
  const kontor = createClient<paths>({ baseUrl });

  // 1. A token: client_credentials with the seller's login as Basic credentials.
  const basic = Buffer.from(`${login}:${password}`).toString('base64');
  const token = await kontor.POST('/token.php', {
    headers: { Authorization: `Basic ${basic}` },
    body: { grant_type: 'client_credentials', scope: 'stock_r stock_w order_r order_w' },
  });
  if (!token.data) throw new Error(`token.php answered ${token.response.status}: ${JSON.stringify(token.error)}`);
  const headers = { Authorization: `Bearer ${String(token.data.access_token)}` };

  // 2. A stock item.
  const stock = await kontor.POST('/stock/', {
    headers,
    body: { stock: { name: 'Enamel mug', sku: `MUG-${Date.now()}`, price: '9.90', quantity: 5 } },
  });
  if (!stock.data) throw new Error(`POST stock/ answered ${stock.response.status}: ${JSON.stringify(stock.error)}`);
  const stockId = String(stock.data.stock_id);

  // 3. An order of two of them.
  const created = await kontor.POST('/order/', {
    headers,
    body: {
      order: {
        currency_id: 'EUR',
        customer: { email: 'buyer@example.com', address: { name: 'Ada Buyer', street: 'Main Street 1', zip: '10115', city: 'Berlin', country_iso2: 'DE' } },
        line: [{ id: 1, name: 'Enamel mug', quantity: 2, price: '9.90', stock_align_id: stockId }],
      },
    },
  });
  if (!created.data) throw new Error(`POST order/ answered ${created.response.status}: ${JSON.stringify(created.error)}`);
  const orderId = String(created.data.order_id);

  // 4. The order read back.
  const read = await kontor.GET('/order/{order_id}/', { headers, params: { path: { order_id: orderId } } });
  if (!read.data?.order) throw new Error(`GET order/${orderId}/ answered ${read.response.status}: ${JSON.stringify(read.error)}`);
  return { stockId, orderId, order: read.data.order };
}
