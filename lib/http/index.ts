/**
 * lib/http, the one way in from other domains: the framework's conventions.
 * scripts/check-cycles.ts refuses imports of this folder's other files from outside it;
 * README.md beside this file has the decisions.
 */
export { answerClientError } from './client-error';
export { checkIfMatch, ifMatchAllows } from './conditional';
export { describe } from './describe';
export type { Description } from './describe';
export { accepted, created, endpoint, multiStatus, ok, okPage, publicEndpoint } from './endpoint';
export type { Endpoint, RequestContext, Result } from './endpoint';
export { boundEchoes } from './echo-bound';
export { answerEnvelope, errorEnvelope, successEnvelope } from './envelope';
export type { Payload } from './envelope';
export { claimKey, fingerprintOf, idempotencyHeader, idempotencyKeyOf, keyHolderOf, keyTakenOverError, replayedHeader } from './idempotency/idempotency';
export type { Claim, StoredAnswer } from './idempotency/idempotency';
export { idempotencyRepository } from './idempotency/idempotency.repository';
export { checkInput, checkParts, checkText, partsIn } from './input-bounds';
export {
  decodeText,
  encodeText,
  isSupportedCharset,
  isUtf16,
  jsonEscape,
  negotiateCharset,
  negotiateFormat,
  parseContentType,
  xmlDeclaredEncoding,
  xmlUtf16Of,
  xmlReference,
} from './media';
export { openApiDocument } from './openapi';
export { acquire, quotaOf, rateLimitHeaders, stopLiveness } from './rate-limit';
export { revisionNotes } from './revisions';
export {
  absentWhenNull,
  bool,
  builtOnFirstUse,
  calendarDate,
  characters,
  datetime,
  decimal,
  integer,
  Joi,
  list,
  nullIsAbsent,
  ownPortalAccountId,
  portalAccountRef,
  readOnly,
  text,
  writeOnly,
} from './schema';
export { parseDeleteFilter, parseSearch, project, runSearch, scopeLookups } from './search';
export type { FilterField, SearchPage, SearchRequest, SearchSpec } from './search';
export { parseSelect } from './search/select';
export { applyConditions } from './search/sql';
export { emptyXmlBulkItems, stripReadOnly, validate } from './validate';
export type { PortalAccountMention } from './validate';
export { buildXmlResponse, parseXmlRequest } from './xml';
export { keysNotWrittenAsThemselves, notWrittenAsItself } from './xml-name';
export { keepXmlOrigin } from './xml-origin';
