import type { Catalog } from './catalog.js';
import type { Caller } from './key-ring.js';
import type { UrlSigner } from './url-signer.js';

/** What a route handler gets: the parsed request and the server's current state. */
export interface RouteContext {
  /** For routes that need a key this is always a valid caller. */
  caller: Caller;
  pathname: string;
  query: URLSearchParams;
  body: Buffer;
  catalog: Catalog;
  signer: UrlSigner;
  /** This server's base URL, for the signed download URLs it hands out. */
  baseUrl: string;
  /** How list items name a package (the forms the hosted service answers). */
  listNames: 'full' | 'versioned' | 'bare';
}

/** A JSON payload (wrapped in `{ data }` when the envelope says so) or raw file bytes. */
export type Reply =
  | { status: number; json: unknown }
  | { status: number; bytes: Buffer; contentType: string; headers?: Record<string, string> };

/** The workspace a caller may read, or undefined for every workspace. */
export function callerWorkspace(caller: Caller): string | undefined {
  return caller.kind === 'valid' ? caller.workspace : undefined;
}
