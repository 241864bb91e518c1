export { createClient } from './create-client.js';
export type { ClientEvent } from './client-options.js';
