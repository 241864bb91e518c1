import type { IncomingMessage } from 'node:http';

/** Beyond the limit the body is read and dropped (so the 413 reaches the client); this far beyond, the connection is cut. */
const DRAIN_ALLOWANCE = 16 * 1024 * 1024;

export interface RequestBody {
  bytes: Buffer;
  /** The body was larger than the limit; `bytes` is then empty. */
  tooLarge: boolean;
}

/**
 * Reads a request body of at most `maxBytes`. A larger one is drained rather than answered
 * mid-upload, since a client still sending would see a reset instead of the 413.
 */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<RequestBody> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    let tooLarge = declared > maxBytes;
    if (declared > maxBytes + DRAIN_ALLOWANCE) {
      resolve({ bytes: Buffer.alloc(0), tooLarge: true });
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        tooLarge = true;
        chunks.length = 0;
      } else if (!tooLarge) chunks.push(chunk);
      if (size > maxBytes + DRAIN_ALLOWANCE) req.destroy();
    });
    req.on('end', () => resolve({ bytes: tooLarge ? Buffer.alloc(0) : Buffer.concat(chunks), tooLarge }));
    req.on('error', reject);
    req.on('close', () => {
      if (!req.complete) reject(new Error('request aborted'));
    });
  });
}
