/**
 * `.env` and `.env.local` of the project (README, "Configuration"): parsed as Node's own
 * `process.loadEnvFile` does (`util.parseEnv`), below the real environment. They come with the
 * repository, so they are inputs like any other (docs/security.md, "Files on disk"): only a
 * regular file is read (a link is followed to one), never a FIFO (it would hang `generate`, so
 * `npm install`) or a device (a link to /dev/zero grew without end), and never more than
 * ENV_FILE_BYTES.
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';
import { ConfigError } from '../errors.js';
import { displayPath } from '../util/display-path.js';

/** Files of variables read from the project root, later ones winning. */
export const ENV_FILES = ['.env', '.env.local'] as const;
/** The most bytes an env file may hold: a few hundred variables fit with room to spare. */
const ENV_FILE_BYTES = 1024 * 1024;

function kindOf(stats: Stats): string {
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  if (stats.isSocket()) return 'a socket';
  if (stats.isDirectory()) return 'a folder';
  return 'not a regular file';
}

/** The text of one env file; undefined when there is none. */
function readEnvFile(file: string): string | undefined {
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO with no writer returns at once instead of waiting forever.
    fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw new ConfigError(`Cannot read ${file}: ${(error as Error).message}.`, {
      hint: 'Fix its permissions, or delete it.',
      cause: error,
    });
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) {
      throw new ConfigError(
        `Not reading ${file}: it is ${kindOf(stats)}, and promptlock reads env files only when they are regular files.`,
        {
          hint: `Replace ${path.basename(file)} with a regular file of NAME=value lines, or delete it.`,
        },
      );
    }
    // Read at most one byte past the cap, whatever the size said: the file may grow meanwhile.
    const buffer = Buffer.alloc(Math.min(stats.size, ENV_FILE_BYTES) + 1);
    let length = 0;
    for (let n = 1; n > 0 && length < buffer.length; length += n) n = readSync(fd, buffer, length, buffer.length - length, null);
    if (length > ENV_FILE_BYTES) {
      throw new ConfigError(`Not reading ${file}: it holds more than ${ENV_FILE_BYTES} bytes, more than any env file needs.`, {
        hint: `Keep only NAME=value lines in ${path.basename(file)}.`,
      });
    }
    return buffer.subarray(0, length).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

export interface ProjectEnv {
  /** The environment with the files' variables filled in below it. */
  env: NodeJS.ProcessEnv;
  /** Where a variable's value came from, as messages name it: `the environment`, or the path of `.env` / `.env.local`. */
  sourceOf(name: string): string;
}

/**
 * The environment with the variables of `.env` and `.env.local` at the project root filled in,
 * and where each value came from (a key that cannot be sent is named with its file). The real
 * environment wins, and `process.env` is left untouched.
 */
export function readEnv(rootDir: string, env: NodeJS.ProcessEnv): ProjectEnv {
  const fromFiles = new Map<string, { value: string; file: string }>();
  for (const name of ENV_FILES) {
    const file = path.join(rootDir, name);
    const text = readEnvFile(file);
    if (text === undefined) continue;
    for (const [key, value] of Object.entries(parseEnv(text))) if (value !== undefined) fromFiles.set(key, { value, file });
  }
  const merged: NodeJS.ProcessEnv = { ...env };
  for (const [key, { value }] of fromFiles) if (merged[key] === undefined) merged[key] = value;
  return {
    env: merged,
    sourceOf: (name) =>
      env[name] !== undefined || !fromFiles.has(name) ? 'the environment' : displayPath(fromFiles.get(name)!.file, rootDir),
  };
}
