import type { ContextDownload, Prompt, PromptSummary } from '../types.js';

/** What the sync engine needs of the service client (src/api implements it). */
export interface SyncClient {
  listAll(): Promise<PromptSummary[]>;
  getPrompt(packageName: string, variables?: Record<string, string>): Promise<Prompt>;
  getContextDownloadUrl(contextId: string): Promise<ContextDownload>;
  downloadFile(url: string, options: { maxBytes: number; expectedSize?: number }): Promise<Uint8Array>;
  readonly stats: { requests: number; retries: number; status429: number; waitedMs: number };
  close(): Promise<void>;
}
