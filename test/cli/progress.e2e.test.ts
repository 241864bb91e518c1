/** Progress and colour: a live bar on a terminal, plain lines when piped or in CI, NO_COLOR honoured. */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_TEST_KEY, type RunningServer, startServer } from '../../src/server/index.js';
import { runBuiltCli } from '../helpers/cli.js';
import { makeProject, removeDir } from '../helpers/project.js';

// `script` (util-linux) gives the CLI a real pseudo-terminal.
const hasScript = spawnSync('script', ['--version']).status === 0;

/** The CLI's output on a terminal, `script`'s pseudo-terminal. */
async function runOnTty(args: string[], cwd: string, env: Record<string, string | undefined>): Promise<string> {
  const onTty = (argv: readonly string[]) => ['script', '-qec', argv.map((a) => `'${a}'`).join(' '), '/dev/null'];
  return (await runBuiltCli(args, { cwd, env, via: onTty, timeoutMs: 30_000 })).stdout;
}

describe('progress output', () => {
  let server: RunningServer;
  const dirs: string[] = [];
  beforeAll(async () => {
    server = await startServer({ dir: path.resolve('examples/workspace'), port: 0, latencyMs: 20 });
  });
  afterAll(async () => {
    await server.close();
    await Promise.all(dirs.map(removeDir));
  });
  const project = async () => {
    const dir = await makeProject({ baseUrl: server.url, concurrency: 2 });
    dirs.push(dir);
    return dir;
  };
  const ttyEnv = (extra: Record<string, string> = {}) => ({
    PROMPTLOCK_API_KEY: LOCAL_TEST_KEY,
    CI: undefined,
    NO_COLOR: undefined,
    ...extra,
  });

  it.skipIf(!hasScript)('draws a live bar with colour on a terminal', async () => {
    const out = await runOnTty(['sync'], await project(), ttyEnv());
    expect(out).toMatch(/Fetching [█░]+ \d+\/14/);
    expect(out).toContain('\u001b[32m'); // green tick
    expect(out).toContain('Synced 14 prompts');
  });

  it.skipIf(!hasScript)('honours NO_COLOR on a terminal', async () => {
    const out = await runOnTty(['sync'], await project(), ttyEnv({ NO_COLOR: '1' }));
    expect(out).toContain('Synced 14 prompts');
    expect(out).not.toContain('\u001b[32m');
  });

  it.skipIf(!hasScript)('prints plain lines on a terminal when CI is set', async () => {
    const out = await runOnTty(['sync'], await project(), ttyEnv({ CI: 'true' }));
    expect(out).toContain('Fetching 14 prompts…');
    expect(out).not.toMatch(/[█░]/);
  });

  it('prints plain lines and no escape codes when piped', async () => {
    const run = await runBuiltCli(['sync'], {
      cwd: await project(),
      env: { PROMPTLOCK_API_KEY: LOCAL_TEST_KEY, CI: undefined, NO_COLOR: undefined },
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('Fetching 14 prompts…');
    expect(run.stderr).not.toContain('\u001b[');
  });
});
