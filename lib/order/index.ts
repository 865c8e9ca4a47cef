/**
 * lib/order, the one way in from other domains: orders and send_mit.
 * scripts/check-cycles.ts refuses imports of this folder's other files from outside it;
 * README.md beside this file has the decisions.
 */
export { provideChannelFulfilmentQuery } from './channel-fulfilment';
export type { ChannelFulfilmentQuery } from './channel-fulfilment';
export { runChannelCancel } from './order-channel-cancel.run';
export { applyChannelChangeIn, channelFulfilmentNote, createChannelOrderIn, createChannelOrdersIn } from './order-channel.service';
export type { ChannelChange, ChannelDetails } from './order-channel.service';
export { invoiceNumberIn, setBillUrlIn } from './order-invoice.service';
export { maxOrderListItems, writeOrderList } from './order-list.service';
export { checkAmount, fromCents, toCents } from './order-money';
export { bookedByHand, bookedByHandOnAnother, earliestHandBookingHolding, otherHandBookingsHolding, PayerHandBookings } from './order-paid-by-hand';
export type { OtherHandBookingsHolding } from './order-paid-by-hand';
export { payOrdersIn, takeBackPaymentsIn } from './order-payment.service';
export { provideOrderPaymentRecordsQuery } from './order-payment-records';
export { checkCurrency, checkPaymentMethod, checkPlatform, listedIdInAnyCase } from './order-references';
export type { OrderPaymentRecords, ReleasedPayment } from './order-payment-records';
export type { PaymentMisfit, PaymentTakenBack } from './order-payment.service';
export { provideOrderGrant } from './order-grant.repository';
export { orderScopeRepository, owedSql } from './order-scope.repository';
export { orderToApi } from './order.mapper';
export { hasInvoiceNumberIn, orderRepository } from './order.repository';
export type { OrderReadRow } from './order.repository';
export { orderSearch, orderSearchRepository } from './order.search';
export { appendHistory, createOrder, deleteOrder, updateOrder } from './order.service';
export type { OrderCaller } from './order.service';
export { orderCreateType, orderIdPattern, orderListEntryType, orderType } from './order.type';
export type { OrderAddress, OrderInput, StatusFlag } from './order.type';
export { sendMitProcessors } from './send-mit.processor';
export { requestSendMit } from './send-mit.service';
export { sendMitType } from './send-mit.type';
export type { SendMitInput } from './send-mit.type';
