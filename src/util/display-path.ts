import path from 'node:path';

/**
 * A path as users want to read it in a message: relative to `base` (the project folder, or the
 * folder the command runs in) when inside it, else as given. The CLI also shows every path inside
 * its working folder relative (src/cli/logger.ts), so a message made far from the CLI reads alike.
 */
export function displayPath(file: string, base: string): string {
  const relative = path.relative(base, file);
  return relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative.split(path.sep).join('/') : file;
}
