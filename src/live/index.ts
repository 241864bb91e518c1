/**
 * `promptlock/live`: the committed prompts, following the service at run time (docs/live.md).
 * Server-side only; no CLI dependencies. ioredis is loaded only by `redisStore`.
 */

export type { LiveEvent, LivePromptStatus, LivePrompts, LivePromptsOptions, LiveSource } from './create-live-prompts.js';
export { createLivePrompts } from './create-live-prompts.js';
export type { RedisStoreOptions } from './redis-store.js';
export { redisStore } from './redis-store.js';
export type { LiveStore, StoredPrompt } from './store.js';
export { memoryStore } from './store.js';
