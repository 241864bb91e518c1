/**
 * Issue 28, build item 8: while a sync waits for the service's rate limit, it says so: on a
 * terminal the progress line counts the seconds left; otherwise one plain line per long wait (not
 * one per request the wait holds). The service here allows 3 requests per 2-second window, so a
 * sync of 5 prompts (6 requests) waits once, holding three requests. Each test has a key of its
 * own (the service counts per key), so the two run side by side, neither waiting on the other's window.
 */
import { spawnSync } from 'node:child_process';
import { beforeAll, describe, it } from 'vitest';
import type { RunningServer } from '../../src/server/index.js';
import { runBuiltCli, runCliInProcess } from '../helpers/cli.js';
import { disposables } from '../helpers/disposables.js';
import { writeServedFolder } from '../helpers/served-folder.js';

const { serve, project } = disposables();
const KEY = `sk_live_${'RateWaitKey'.padEnd(38, 'r')}wxyz`;
const TTY_KEY = `sk_live_${'RateTtyKey'.padEnd(38, 't')}wxyz`;
const hasScript = spawnSync('script', ['--version']).status === 0;

let server: RunningServer;
beforeAll(async () => {
  server = await serve({
    dir: await writeServedFolder(undefined, 5, 1),
    keys: [{ key: KEY }, { key: TTY_KEY }],
    rateLimits: { authenticated: { perMinute: 3 }, minuteMs: 2000 },
  });
});

describe.concurrent('a sync held by the rate limit', () => {
  it('not on a terminal: one plain line per wait, with its length', async ({ expect }) => {
    const cwd = await project({ baseUrl: server.url, prompts: ['@bulk/*'] });
    const run = await runCliInProcess(['sync'], { cwd, env: { PROMPTLOCK_API_KEY: KEY }, timeoutMs: 30_000 });
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stderr.split('\n').filter((line) => line.includes("for the service's rate limit"));
    // One window to wait for, told once although it held three requests.
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^Waiting \d s for the service's rate limit…$/);
    expect(run.stderr).toContain('Synced 5 prompts');
  });

  it.skipIf(!hasScript)('on a terminal: the progress line counts the seconds left', async ({ expect }) => {
    const cwd = await project({ baseUrl: server.url, prompts: ['@bulk/*'], concurrency: 2 });
    const onTty = (argv: readonly string[]) => ['script', '-qec', argv.map((a) => `'${a}'`).join(' '), '/dev/null'];
    const run = await runBuiltCli(['sync'], { cwd, env: { PROMPTLOCK_API_KEY: TTY_KEY, CI: undefined }, via: onTty, timeoutMs: 30_000 });
    expect(run.stdout).toMatch(/Fetching [█░]+ \d\/5 .*· waiting for the service's rate limit, \d s left/);
    expect(run.stdout).toContain('Synced 5 prompts');
  });
});
