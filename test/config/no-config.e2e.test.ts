/** Item 3: no config file → exit 2 with a clear message, and nothing synced into the folder. */
import { mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { LOCAL_TEST_KEY } from '../../src/secrets.js';
import { runCliInProcess as runBuiltCli, startServe } from '../helpers/cli.js';
import { removeDir } from '../helpers/project.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await removeDir(dir);
});

it.each([['sync'], ['generate'], ['check'], ['diff']])(
  '%s with no prompts.config.*: exit 2, "run promptlock init", no file written',
  async (command) => {
    const serve = await startServe(['--dir', path.resolve(import.meta.dirname, '../../examples/workspace')], tmpdir());
    try {
      const dir = await mkdtemp(path.join(tmpdir(), 'promptlock-no-config-'));
      dirs.push(dir);
      // A project root (package.json without a "promptlock" key) so the search stops here.
      await writeFile(path.join(dir, 'package.json'), '{ "name": "app" }\n');
      const run = await runBuiltCli([command], { cwd: dir, env: { PROMPTLOCK_API_KEY: LOCAL_TEST_KEY, PROMPTLOCK_BASE_URL: serve.url } });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`error: no prompts.config.* found from ${dir}; run \`promptlock init\`.`);
      expect(await readdir(dir)).toEqual(['package.json']);
      expect(serve.requests()).toEqual([]);
    } finally {
      await serve.stop();
    }
  },
);
