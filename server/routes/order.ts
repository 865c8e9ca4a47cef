import { created, endpoint, multiStatus, ok, okPage, Joi, list, revisionNotes } from '../../lib/http';
import { notFound } from '../../lib/errors';
import {
  maxOrderListItems,
  writeOrderList,
  orderToApi,
  orderRepository,
  orderSearch,
  orderSearchRepository,
  appendHistory,
  createOrder,
  deleteOrder,
  updateOrder,
  OrderInput,
  orderCreateType,
  orderIdPattern,
  orderListEntryType,
  orderType,
} from '../../lib/order';

const orderIdParams = Joi.object({ order_id: Joi.string().pattern(orderIdPattern) });

type OrderIdParams = { order_id: string };

/** Orders (document 1, Order), except send_mit (issue 6). */
export const orderEndpoints = [
  endpoint({
    method: 'GET',
    path: 'order/',
    changes: [revisionNotes.orderSearchAge, revisionNotes.orderFilterNumber, revisionNotes.shippingLink, revisionNotes.billDate],
    summary: 'Search orders (Order_filter_type, OR across filter objects); only orders at least ORDER_SEARCH_MIN_AGE_SECONDS (10 s) old.',
    scope: 'order_r',
    search: orderSearch,
    response: ['order', 'next_min_id'],
    async handle({ caller, search }) {
      const page = await orderSearchRepository.search(caller, search);
      return okPage('order', page);
    },
  }),

  endpoint<Record<string, never>, { order: OrderInput }>({
    method: 'POST',
    path: 'order/',
    changes: [revisionNotes.historyAtCreation],
    creates: true,
    summary: 'Create an order; the history may be passed and is written immediately.',
    scope: 'order_w',
    body: Joi.object({ order: orderCreateType().required() }),
    example: {
      order: {
        customer: {
          email: 'erika@example.com',
          address: { name: 'Erika Mustermann', street: 'Hauptstraße 1', zip: '10115', city: 'Berlin', country_iso2: 'DE' },
        },
        line: [{ id: 1, name: 'Enamel mug', quantity: 2, price: '12.50', tax: '19' }],
      },
    },
    response: ['order_id'],
    handle: async ({ caller, body }) => created({ order_id: await createOrder(caller, body.order) }),
  }),

  endpoint<Record<string, never>, { order: unknown[] }>({
    method: 'POST',
    path: 'order/list/',
    changes: [revisionNotes.historyAtCreation],
    creates: true,
    summary: 'Create (without id) or update (with id) up to 200 orders, each on its own; HTTP 207.',
    scope: 'order_w',
    body: Joi.object({ order: list(Joi.any()).min(1).max(maxOrderListItems).required() }),
    example: {
      order: [
        { customer: { email: 'erika@example.com' }, line: [{ id: 1, name: 'Enamel mug', quantity: 1, price: '12.50' }] },
        { customer: { email: 'max@example.com' }, line: [{ id: 1, name: 'Tea towel', quantity: 3, price: '4.90' }] },
      ],
    },
    bulk: { field: 'order', item: orderListEntryType },
    response: ['response'],
    handle: async ({ caller, body }) => multiStatus(await writeOrderList(caller, body.order)),
  }),

  endpoint<OrderIdParams>({
    method: 'GET',
    path: 'order/{order_id}/',
    changes: [revisionNotes.shippingLink, revisionNotes.billDate],
    summary: 'Read one order.',
    scope: 'order_r',
    params: orderIdParams,
    select: { type: orderType(), alwaysSelected: ['id'] },
    response: ['order'],
    async handle({ caller, params }) {
      const row = await orderRepository.get(caller, params.order_id);
      if (!row) throw notFound(`order ${params.order_id}`, 'order_id');
      // The order's version: POST order/{order_id}/ with If-Match of this tag changes only this state.
      return { ...ok({ order: orderToApi(row) }), headers: { ETag: `"${row.version}"` } };
    },
  }),

  endpoint<OrderIdParams, { order: OrderInput }>({
    method: 'POST',
    path: 'order/{order_id}/',
    summary: 'Update an order; status.is_paid and platform are set only at creation, payment_provider_transaction_id cannot change once set.',
    scope: 'order_w',
    params: orderIdParams,
    body: Joi.object({ order: orderType().required() }),
    example: { order: { status: { is_packed: true } } },
    conditional:
      'the ETag of GET order/{order_id}/ (any select or format): the update applies only while the order is in the state that read saw; otherwise 412 record_changed and nothing changes',
    response: ['order_id'],
    async handle({ caller, params, body, request }) {
      await updateOrder(caller, params.order_id, body.order, request.warnings, request.ifMatch);
      return ok({ order_id: params.order_id });
    },
  }),

  endpoint<OrderIdParams>({
    method: 'DELETE',
    path: 'order/{order_id}/',
    summary:
      'Delete an order; the stock of an unshipped order goes back, and the bank transfers and payment-provider payments assigned to it become unassigned again (unassigned_reason order_deleted; warning payment_unassigned names the amount).',
    scope: 'order_w',
    params: orderIdParams,
    conditional:
      'the ETag of GET order/{order_id}/ (any select or format): the order is deleted only while it is in the state that read saw (no payment booked, no channel change since); otherwise 412 record_changed and nothing changes',
    response: [],
    async handle({ caller, params, request }) {
      await deleteOrder(caller, params.order_id, request.warnings, request.ifMatch);
      return ok();
    },
  }),

  endpoint<OrderIdParams>({
    method: 'GET',
    path: 'order/{order_id}/history/',
    summary: 'The complete history of an order.',
    scope: 'order_r',
    params: orderIdParams,
    response: ['history'],
    async handle({ caller, params }) {
      const history = await orderRepository.history(caller, params.order_id);
      if (!history) throw notFound(`order ${params.order_id}`, 'order_id');
      return ok({ history });
    },
  }),

  endpoint<OrderIdParams, { text: string }>({
    method: 'POST',
    path: 'order/{order_id}/history/',
    changes: [revisionNotes.historyAtCreation],
    creates: true,
    summary: 'Append a history entry.',
    scope: 'order_w',
    params: orderIdParams,
    body: Joi.object({ text: Joi.string().trim().min(1).max(10000).required() }),
    example: { text: 'Called the buyer: the parcel goes out tomorrow.' },
    response: [],
    async handle({ caller, params, body }) {
      await appendHistory(caller, params.order_id, body.text);
      return ok();
    },
  }),
];
