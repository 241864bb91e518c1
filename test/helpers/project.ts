import { cp, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** A throw-away project folder with a prompts.config.json. */
export async function makeProject(config: Record<string, unknown>): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'promptlock-e2e-'));
  await writeFile(path.join(dir, 'prompts.config.json'), `${JSON.stringify(config, null, 2)}\n`);
  return dir;
}

export async function removeDir(dir: string): Promise<void> {
  // Retries: a watcher that is closing may still write a file into the folder (ENOTEMPTY).
  await rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
}

/** Every file under `dir` (relative path → bytes as base64 + mtime), to compare two states. */
async function snapshotTree(dir: string, options: { mtimes?: boolean } = {}): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  async function walk(current: string): Promise<void> {
    for (const entry of await readdir(current, { withFileTypes: true })) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) await walk(full);
      else {
        const rel = path.relative(dir, full).split(path.sep).join('/');
        const bytes = await readFile(full);
        out[rel] = bytes.toString('base64') + (options.mtimes ? `@${(await stat(full)).mtimeMs}` : '');
      }
    }
  }
  await walk(dir);
  return out;
}

/** The project's store files only (lockfile, snapshots, module), ignoring promptlock's work folder. */
export async function storeTree(dir: string, options: { mtimes?: boolean } = {}): Promise<Record<string, string>> {
  const all = await snapshotTree(dir, options);
  return Object.fromEntries(Object.entries(all).filter(([rel]) => !rel.startsWith('.promptlock/') && rel !== 'prompts.config.json'));
}

/** Text of every file under `dir`, concatenated: for "the key appears nowhere" assertions. */
export async function allText(dir: string): Promise<string> {
  const tree = await snapshotTree(dir);
  return Object.values(tree)
    .map((b64) => Buffer.from(b64, 'base64').toString('latin1'))
    .join('\n');
}

export async function copyDir(from: string, to: string): Promise<void> {
  await cp(from, to, { recursive: true });
}
