import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import { type RunningServer, type ServerOptions, startServer } from '../../src/server/index.js';
import { makeProject, removeDir } from './project.js';

/**
 * Servers and project folders for one test file, all stopped or removed (last first) after it.
 * Call at the top level of the file: it registers the `afterAll`.
 */
export function disposables() {
  const cleanup: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const fn of cleanup.reverse()) await fn();
  });
  return {
    /** The real local service on a free loopback port. */
    async serve(options: Partial<ServerOptions> & { dir: string }): Promise<RunningServer> {
      const server = await startServer({ port: 0, ...options });
      cleanup.push(() => server.close());
      return server;
    },
    /** A temporary project with this prompts.config.json. */
    async project(config: Record<string, unknown>): Promise<string> {
      const dir = await makeProject(config);
      cleanup.push(() => removeDir(dir));
      return dir;
    },
    /** A temporary folder holding `files` (relative path → text), e.g. hand-authored prompts for `serve`. */
    async folder(files: Record<string, string>): Promise<string> {
      const dir = await mkdtemp(path.join(tmpdir(), 'promptlock-folder-'));
      cleanup.push(() => removeDir(dir));
      for (const [file, text] of Object.entries(files)) {
        await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
        await writeFile(path.join(dir, file), text);
      }
      return dir;
    },
    /** Anything else to undo after the file. */
    defer(fn: () => Promise<void>): void {
      cleanup.push(fn);
    },
  };
}
