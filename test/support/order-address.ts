/**
 * An Order_address_type as GET order/ answers it: every one of document 2's nine fields, null
 * where the order has no value (lib/order/order.mapper.ts addressToApi).
 */
export const answeredAddress = (given: Record<string, unknown> = {}): Record<string, unknown> => ({
  name: null,
  name_2: null,
  street: null,
  street_2: null,
  zip: null,
  city: null,
  province: null,
  country: null,
  country_iso2: null,
  ...given,
});
