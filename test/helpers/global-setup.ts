/**
 * Runs once before every test file: the user's cache folder (where promptlock keeps a TypeScript
 * config's transpiled code, README "Configuration") is a temporary one, so tests write nothing
 * into the home folder of the machine; removed when the run ends.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

export default async function setup(): Promise<() => Promise<void>> {
  const cacheHome = await mkdtemp(path.join(tmpdir(), 'promptlock-test-cache-'));
  process.env.XDG_CACHE_HOME = cacheHome;
  return () => rm(cacheHome, { recursive: true, force: true });
}
