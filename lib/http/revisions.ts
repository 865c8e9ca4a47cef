/**
 * The revision notes document 1 shows (Versioning 3), for the OPTIONS overview of the endpoints they
 * concern (document 1: "OPTIONS on an endpoint gives an overview of methods, objects and version
 * changes"). Each endpoint declaration names its notes in `changes`; the service serves every
 * version the same, so these say when a behaviour came, not what an older prefix does.
 */
const note = (version: string, change: string) => ({ version, change });

export const revisionNotes = {
  shippingLink: note('v1.1.18', 'Order_type.shipping.link is a list of links (one per tracking number).'),
  orderSearchAge: note('v1.1.13', 'GET order/ returns only orders at least 10 seconds old.'),
  orderFilterNumber: note('v1.1.13', 'Order_filter_type.number added.'),
  historyAtCreation: note('v1.1.13', 'history entries can be passed when an order is created; later ones only by POST order/{order_id}/history/.'),
  sendMitRating: note('v1.1.13', "send_mit also runs the first auction portal's automatic rating."),
  mktdSkuPrefix: note('v1.1.13', 'A stock_id is also accepted with the MKTDSKU_ prefix.'),
  setTypeLowercase: note('v1.1.13', 'Stock_type.set.type values are output lowercase (main, sub).'),
  stockFilterMarketD: note('v1.1.13', 'Stock_filter_type: the market_d group filter added.'),
  refreshTokenLifetime: note('v1.1.10', 'Refresh token valid up to 2 years, replaced only from 1 month before it expires.'),
  billDate: note('v1.1.10', 'Order_type.bill_date added.'),
  portalUploadMultistatus: note('v1.0.2', 'portal_upload answers changed with the Multistatus_type change.'),
  listerNameToMaster: note(
    'v1.0.2',
    'Setting the offer name in a lister record (auction_a, auction_b, market_c, shop groups) also writes it to the master data.',
  ),
} as const;

export type RevisionNote = (typeof revisionNotes)[keyof typeof revisionNotes];
