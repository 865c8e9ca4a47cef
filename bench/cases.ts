/** The benchmark cases; each domain adds its own (one import and one line). */
import { bankBench } from './bank';
import { invoicesBench } from './invoices';
import { channelKauflandShopifyBench } from './channel-kaufland-shopify';
import { channelPageBench } from './channel-page';
import { eventsBench } from './events';
import { channelAmazonBench, channelBench, fleetBench } from './fleet';
import { fleetClusterBench } from './fleet-cluster';
import { fleetHostsBench } from './fleet-hosts';
import { orderListBench } from './order-list';
import { orderSearchBench } from './order-search';
import { readPathBench } from './read-path';
import { roundTripsBench } from './round-trips';
import { stockGetBench, stockListBench, stockSearchBench } from './stock';
export interface BenchCase {
  name: string;
  description: string;
  run(): Promise<void>;
}

export const cases: BenchCase[] = [];
cases.push(orderListBench);
cases.push(orderSearchBench);
cases.push(stockListBench, stockGetBench, stockSearchBench);
cases.push(readPathBench);
cases.push(fleetBench, channelBench, channelAmazonBench, channelKauflandShopifyBench, channelPageBench);
cases.push(fleetClusterBench, fleetHostsBench, roundTripsBench);
cases.push(eventsBench);
cases.push(bankBench);
cases.push(invoicesBench);
