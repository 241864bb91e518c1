import { createHash } from 'node:crypto';

/** Subresource-integrity style digest: `sha256-<base64>`. */
export function integrityOf(data: string | Uint8Array): string {
  return `sha256-${createHash('sha256').update(data).digest('base64')}`;
}
