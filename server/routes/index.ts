import type { Endpoint } from '../../lib/http';
import { adminEndpoints } from './admin';
import { customerEndpoints } from './customer';
import { orderEndpoints } from './order';
import { jobEndpoints } from './job';
import { stockJobEndpoints } from './stock-jobs';
import { referenceEndpoints } from './reference';
import { adminPersonEndpoints } from './admin-person';
import { adminShippingGroupEndpoints } from './admin-shipping-group';
import { taskEndpoints } from './task';
import { adminEventHandlerEndpoints } from './admin-event-handler';
import { sendMitEndpoints } from './send-mit';
import { systemEndpoints } from './system';
import { stockEndpoints } from './stock';
import { tokenEndpoints } from './token';
import { bankEndpoints } from './bank';
import { adminClientAccessEndpoints } from './admin-client-access';
import { orderImportEndpoints } from './order-import';
import { invoiceEndpoints } from './invoice';
import { portalAccountConnectEndpoints } from './portal-account-connect';

/** Every endpoint of the API, one declaration each. */
export const endpoints: Endpoint[] = [
  ...tokenEndpoints,
  ...systemEndpoints,
  ...stockEndpoints,
  ...adminEndpoints,
  ...orderEndpoints,
  ...customerEndpoints,
  ...jobEndpoints,
  ...stockJobEndpoints,
  ...referenceEndpoints,
  ...adminPersonEndpoints,
  ...adminShippingGroupEndpoints,
  ...taskEndpoints,
  ...adminEventHandlerEndpoints,
  ...sendMitEndpoints,
  ...bankEndpoints,
  ...adminClientAccessEndpoints,
  ...orderImportEndpoints,
  ...invoiceEndpoints,
  ...portalAccountConnectEndpoints,
];
