/**
 * `promptlock serve` as users run it: the built CLI (run `npx tsup` first) in a child process,
 * stopped by PID with SIGTERM/SIGINT; and flag errors through `runCli` in-process.
 */

import { existsSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { startServe } from '../helpers/cli.js';
import { memoryIO } from '../helpers/memory-io.js';
import { call, EXAMPLES, getPrompt, KEY } from './helpers.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const serve = (args: string[]) => startServe(args, ROOT);

const io = () => memoryIO({ env: { NO_COLOR: '1' }, cwd: ROOT });

describe.runIf(existsSync(path.join(ROOT, 'dist/cli.js')))('built CLI', () => {
  it('serves examples/workspace on a free port, prints the URL, and exits 0 on SIGTERM', async () => {
    const served = await serve(['--dir', 'examples/workspace', '--port', '0']);
    expect(served.line).toMatch(
      /^promptlock serve listening on http:\/\/127\.0\.0\.1:\d+ \(14 prompts in 2 workspaces from examples\/workspace; test key sk_test_PromptlockLocalTestKey0+\)$/,
    );
    expect((await getPrompt(served, '@acme/support-reply:v2', { customer_name: 'Ann', topic: 'refunds' })).body.content).toBe(
      'Hello Ann,\n\nThanks for writing about refunds. Here is what we can do:',
    );
    expect((await served.stop('SIGTERM')).code).toBe(0);
    expect(served.stderr()).toContain('promptlock serve stopped');
  });

  it('takes keys (plain and scoped), shapes and limits from flags, never printing a given key; SIGINT stops it', async () => {
    const full = 'sk_test_CliFullKey0000000000000000000000000000000000';
    const scoped = 'sk_test_CliScopedKey00000000000000000000000000000000';
    const served = await serve([
      '--dir',
      EXAMPLES,
      '--port',
      '0',
      '--key',
      full,
      '--key',
      `globex=${scoped}`,
      '--errors',
      'flat',
      '--envelope',
      'wrapped',
      '--limit-per-minute',
      '2',
      '--verbose',
    ]);
    expect(served.line).toContain('; 2 keys)');
    expect((await call(served, '/v1/prompts', { key: KEY })).status).toBe(401);
    expect((await getPrompt(served, '@acme/welcome', undefined, scoped)).body).toEqual({
      error: 'This API key has no access to workspace "acme".',
    });
    // Two requests per minute for each key: the full key's budget is its own.
    expect((await getPrompt(served, '@acme/welcome', undefined, full)).body.data.version).toBe('v2');
    expect((await getPrompt(served, '@acme/welcome:v1', undefined, full)).body.data.version).toBe('v1');
    const refused = await getPrompt(served, '@acme/welcome', undefined, full);
    expect(refused.status).toBe(429);
    expect(refused.body.retry_after).toBe(Number(refused.headers.get('retry-after')));
    expect((await served.stop('SIGINT')).code).toBe(0);
    expect(served.stderr()).toContain('POST /v1/prompts/get 429');
    for (const key of [full, scoped]) expect(served.stderr() + served.line).not.toContain(key);
  });
});

describe('flag errors (exit 2, nothing started)', () => {
  const cases: Array<[string, string[], RegExp]> = [
    ['a bad port', ['--port', 'eighty'], /Invalid value for --port: expected an integer from 0 to 65535, got "eighty"\./],
    ['a port out of range', ['--port', '70000'], /Invalid value for --port/],
    ['a bad limit', ['--limit-per-minute', '-1'], /Invalid value for --limit-per-minute: expected an integer ≥ 0, got "-1"\./],
    ['a bad fault rate', ['--faults', '2'], /Invalid value for --faults: expected a fraction from 0 to 1/],
    ['a bad fault kind', ['--faults', '0.1', '--fault-kinds', '500'], /"500" is not one of 503, reset, truncate/],
    ['a bad workspace before =', ['--key', 'Bad WS=sk_test_x1234567'], /"Bad WS" before "=" is not a workspace slug/],
    ['a missing folder', ['--dir', 'no/such/folder'], /does not exist/],
  ];
  it.each(cases)('%s', async (_name, args, message) => {
    const cliIo = io();
    const code = await runCli(['serve', '--port', '0', ...args], cliIo);
    expect(code).toBe(2);
    expect(cliIo.err()).toMatch(message);
    expect(process.listenerCount('SIGTERM')).toBeLessThanOrEqual(1);
  });

  it('a port another server holds: says so and what to pass, instead of leaving that server to answer', async () => {
    const other = createServer();
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const { port } = other.address() as AddressInfo;
    try {
      const cliIo = io();
      expect(await runCli(['serve', '--dir', 'examples/workspace', '--port', String(port)], cliIo)).toBe(2);
      expect(cliIo.err()).toBe(`error: Port ${port} on 127.0.0.1 is already in use.\n  Pass another --port, or --port 0 for a free one.\n`);
      expect(cliIo.out()).toBe('');
    } finally {
      await new Promise<void>((resolve) => other.close(() => resolve()));
    }
  });

  it('refuses an unknown --envelope through commander', async () => {
    const cliIo = io();
    expect(await runCli(['serve', '--envelope', 'both'], cliIo)).toBe(2);
    expect(cliIo.err()).toContain("argument 'both' is invalid");
  });
});
