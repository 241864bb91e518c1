/** What the folder readers produce for one package: the unit the catalog is built from and reloaded by. */
import type { Prompt } from '../types.js';

/** A context file that can be downloaded through a signed URL. */
export interface ServedFile {
  contextId: string;
  workspace: string;
  /** Real absolute path, checked at load time to lie inside the served folder (and again at each download). */
  path: string;
  fileName: string;
  mimeType: string;
}

export interface LoadedVersion {
  /** `0` is the draft. */
  number: number;
  /** The prompt as served, without `metadata.generatedAt`; `content` still holds its placeholders. */
  prompt: Prompt;
  files: ServedFile[];
}

export interface LoadedPackage {
  workspace: string;
  package: string;
  versions: LoadedVersion[];
  /** Folders read for this package, to watch for changes. */
  dirs: string[];
}

/** Text files are taken verbatim, less a byte-order mark and exactly one trailing newline. */
export function authoredText(raw: string): string {
  const text = raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw;
  if (text.endsWith('\r\n')) return text.slice(0, -2);
  if (text.endsWith('\n')) return text.slice(0, -1);
  return text;
}
