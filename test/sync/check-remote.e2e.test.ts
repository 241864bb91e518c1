/**
 * `check --remote` through the built CLI against `promptlock serve`: a failure that ends the run
 * (a rejected key, a service that cannot be reached) is said once, not once per locked prompt.
 */
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { LOCAL_TEST_KEY } from '../../src/server/index.js';
import { runBuiltCli } from '../helpers/cli.js';
import { disposables } from '../helpers/disposables.js';
import { removeDir } from '../helpers/project.js';
import { writeServedFolder } from '../helpers/served-folder.js';

const { serve, project, defer } = disposables();

/** A loopback port nothing listens on (taken, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('check --remote with exact entries', () => {
  it('says a rejected key and an unreachable service once, not once per prompt', async () => {
    const folder = await writeServedFolder(undefined, 60, 1);
    defer(() => removeDir(folder));
    const server = await serve({ dir: folder });
    const names = Array.from({ length: 60 }, (_, i) => `@bulk/prompt-${String(i).padStart(4, '0')}`);
    const dir = await project({ baseUrl: server.url, prompts: names });
    expect((await runBuiltCli(['sync'], { cwd: dir, env: { PROMPTLOCK_API_KEY: LOCAL_TEST_KEY } })).code).toBe(0);

    const wrongKey = await runBuiltCli(['check', '--remote', '--no-typecheck', '--json'], {
      cwd: dir,
      env: { PROMPTLOCK_API_KEY: 'sk_live_wrongwrongwrongwrong1234' },
    });
    expect(wrongKey.code).toBe(1);
    const details = JSON.parse(wrongKey.stdout).details as Array<{ code: string; subject: string; message: string }>;
    expect(details).toHaveLength(1);
    expect(details[0]).toMatchObject({ code: 'remote-error', subject: server.url });
    expect(details[0]!.message).toMatch(/^the service could not be checked: .*401/);

    const text = await runBuiltCli(['check', '--remote', '--no-typecheck'], {
      cwd: dir,
      env: { PROMPTLOCK_API_KEY: LOCAL_TEST_KEY, PROMPTLOCK_BASE_URL: `http://127.0.0.1:${await closedPort()}` },
    });
    expect(text.code).toBe(1);
    expect(text.stderr).toContain('check found 1 problem:');
    expect(text.stderr.match(/could not be checked/g)).toHaveLength(1);
  }, 60_000);
});
