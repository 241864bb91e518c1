import { hostname } from 'node:os';
import { open, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { PromptlockError } from '../errors.js';
import { ensureWorkDir } from './work-dir.js';

interface LockOwner {
  pid: number;
  host: string;
  command: string;
  startedAt: string;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function readOwner(file: string): Promise<LockOwner | undefined> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as LockOwner;
  } catch {
    return undefined;
  }
}

export interface RunLock {
  release(): Promise<void>;
}

/**
 * Takes the project's run lock (`.promptlock/run.lock`, created exclusively) so two runs never
 * write the store at once. A lock left by a process that no longer exists on this host is taken
 * over; a live one makes this run fail with a clear message.
 */
export async function acquireRunLock(rootDir: string, command: string): Promise<RunLock> {
  const file = path.join(await ensureWorkDir(rootDir), 'run.lock');
  const me: LockOwner = { pid: process.pid, host: hostname(), command, startedAt: new Date().toISOString() };
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const handle = await open(file, 'wx');
      await handle.writeFile(JSON.stringify(me));
      await handle.close();
      return { release: () => rm(file, { force: true }) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = await readOwner(file);
    const stale = owner === undefined ? attempt > 0 : owner.host === me.host && !isAlive(owner.pid);
    if (!stale) {
      if (owner === undefined) {
        // Being written right now by another process: look again.
        await new Promise((resolve) => setTimeout(resolve, 50));
        continue;
      }
      throw new PromptlockError(
        `Another promptlock ${owner.command} is running in this project (pid ${owner.pid}, started ${owner.startedAt}).`,
        {
          hint: `Wait for it to finish. If no such process exists, delete ${path.relative(rootDir, file) || file}.`,
        },
      );
    }
    await rm(file, { force: true });
  }
  throw new PromptlockError(`Could not take the run lock ${file}.`, { hint: 'Delete it if no promptlock is running.' });
}
