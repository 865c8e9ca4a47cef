import { Joi, list, portalAccountRef, text } from '../http/schema';
import type { PortalAccountRef } from '../portal-account/portal-account.service';

const reviseValues = ['price', 'title', 'desc', 'sku', 'specs', 'widerruf', 'subtitle', 'pic', 'shipping', 'quantity', 'cat'] as const;

/** Stock_portal_upload_auction_a_type. */
const auctionPart = Joi.object({
  action: Joi.string().valid('list', 'revise').required(),
  portal_account_id: portalAccountRef(),
  lister_id: Joi.alternatives(Joi.number().integer().min(0).custom((v: number) => String(v)), text(32)),
  start: text(64),
  revise_values: list(Joi.string().valid(...reviseValues)),
  auction_a_live_id: Joi.alternatives(Joi.number().integer().min(1).custom((v: number) => String(v)), Joi.string().trim().max(64)),
});

/** Stock_portal_upload_portal_type. */
const portalPart = Joi.object({
  action: Joi.string().valid('list', 'delete').required(),
  portal_account_id: portalAccountRef(),
});

/** Stock_portal_upload_type (document 2). */
export const portalUploadType = Joi.object({
  auction_a: list(auctionPart),
  market_d: list(portalPart),
  market_e: list(portalPart),
  market_f: list(portalPart),
  shop_g: list(portalPart),
});

export interface PortalUploadPart {
  action: 'list' | 'revise' | 'delete';
  portal_account_id?: PortalAccountRef;
  lister_id?: string;
  start?: string;
  revise_values?: string[];
  auction_a_live_id?: string;
}

export type PortalUploadInput = Partial<Record<'auction_a' | 'market_d' | 'market_e' | 'market_f' | 'shop_g', PortalUploadPart[]>>;

/** What each portal of the upload type accepts (document 2): market_e may end; market_d, market_f, shop_g only list. */
export const uploadActions: Record<keyof PortalUploadInput, PortalUploadPart['action'][]> = {
  auction_a: ['list', 'revise'],
  market_d: ['list'],
  market_e: ['list', 'delete'],
  market_f: ['list'],
  shop_g: ['list'],
};
