export type { ClientEvent } from './client-options.js';
export { clientOptionsFor } from './client-options.js';
export { createClient } from './create-client.js';
