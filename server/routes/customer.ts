import { endpoint, ok, okPage, Joi } from '../../lib/http';
import { notFound } from '../../lib/errors';
import { customerRepository, customerSearch } from '../../lib/customer';

/**
 * Customers (document 1, Admin): read only; they are created and updated through orders. A client
 * bound to one portal account reads only customers with an order of that portal account.
 */
export const customerEndpoints = [
  endpoint({
    method: 'GET',
    path: 'admin/customer/',
    summary: "Customers with Customer_filter_type and pagination; sales.amount sums the customer's orders.",
    scope: 'customer_r',
    search: customerSearch,
    response: ['customer', 'next_min_id'],
    async handle({ caller, search }) {
      const page = await customerRepository.search(caller, search);
      return okPage('customer', page);
    },
  }),

  endpoint<{ customer_id: string }>({
    method: 'GET',
    path: 'admin/customer/{customer_id}/',
    summary: 'One customer by its customer number (Customer_type id).',
    scope: 'customer_r',
    params: Joi.object({ customer_id: Joi.string().max(64) }),
    response: ['customer'],
    async handle({ caller, params }) {
      const customer = await customerRepository.get(caller, params.customer_id);
      if (!customer) throw notFound(`customer ${params.customer_id}`, 'customer_id');
      return ok({ customer });
    },
  }),
];
