import type { Endpoint } from '../../lib/http/endpoint';
import { adminEndpoints } from './admin';
import { systemEndpoints } from './system';
import { tokenEndpoints } from './token';

/** Every endpoint of the API, one declaration each. */
export const endpoints: Endpoint[] = [
  ...tokenEndpoints,
  ...systemEndpoints,
  ...adminEndpoints,
];
