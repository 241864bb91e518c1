export { createClient } from './create-client.js';
export type { PromptServiceClient } from './create-client.js';
export type { ClientOptions, ClientEvent, ClientStats, RetryReason } from './client-options.js';
export { CLIENT_DEFAULTS } from './client-options.js';
export type { DownloadOptions } from './download-file.js';
