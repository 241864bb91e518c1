/**
 * `promptlock serve` as an exposed service: error bodies echo at most 200 characters of any
 * request value (finding 18); `--host` off loopback needs a key of one's own or
 * `--insecure-test-key`, warns and prints the bound address (finding 19); links in a snapshots
 * folder are refused as in authored folders (finding 2, serve side).
 */
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startServer } from '../../src/server/index.js';
import { runCliInProcess as runBuiltCli, startServe } from '../helpers/cli.js';
import { disposables } from '../helpers/disposables.js';
import { writeServedFolder } from '../helpers/served-folder.js';
import { call, EXAMPLES } from '../server/helpers.js';

const { serve, defer } = disposables();

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'promptlock-serve-sec-'));
  defer(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

describe('error bodies echo request values cut short', () => {
  const huge = 'v'.repeat(500_000);
  const cut = `${'v'.repeat(200)}… (truncated, 500000 characters)`;

  it.each(['nested', 'flat'] as const)('%s: a 500,000-character variable name, package name or path', async (errors) => {
    const server = await serve({ dir: EXAMPLES, errors });
    const cases = [
      await call(server, '/v1/prompts/get', { json: { package_name: '@acme/welcome', variables: { [huge]: 1 } } }),
      await call(server, '/v1/prompts/get', { json: { package_name: huge } }),
      await call(server, '/v1/prompts/get', { json: { package_name: `@acme/${huge.slice(6)}` } }),
    ];
    for (const answer of cases) {
      expect(answer.status).toBeGreaterThanOrEqual(400);
      expect(answer.text.length).toBeLessThan(1_000);
      expect(answer.text).toContain(cut.slice(190));
    }
    // A URL is bounded by the header limit (16 KiB): 10,000 characters of it.
    const longId = await call(server, `/api/v1/prompts/context/download-url?contextId=${'i'.repeat(10_000)}`);
    expect(longId.status).toBe(404);
    expect(longId.text.length).toBeLessThan(1_000);
    expect(longId.text).toContain(`${'i'.repeat(200)}… (truncated, 10000 characters)`);
    expect(cases[0]!.text).toContain(`variables.${cut}`);
    const longPath = await call(server, `/v9/${'p'.repeat(8_000)}`);
    expect(longPath.status).toBe(404);
    expect(longPath.text.length).toBeLessThan(1_000);
    expect(longPath.text).toContain('… (truncated, 8004 characters)');
  });
});

describe('links in a snapshots folder', () => {
  async function folderWithOutside() {
    const root = await tempDir();
    const served = await writeServedFolder(path.join(root, 'served'), 1, 1);
    const outside = path.join(root, 'outside');
    await mkdir(outside);
    await writeFile(path.join(outside, 'secret.txt'), 'not for serving');
    await writeFile(path.join(outside, 'elsewhere.json'), '{}');
    return { served, outside };
  }

  it.each([
    ['a linked <package>.files folder', 'bulk/prompt-0000.files', (o: string) => o],
    ['a link inside <package>.files', 'bulk/prompt-0000.files/secret.txt', (o: string) => path.join(o, 'secret.txt')],
    ['a linked snapshot', 'bulk/other.json', (o: string) => path.join(o, 'elsewhere.json')],
    ['a linked workspace folder', 'linked', (o: string) => o],
  ])('%s is refused', async (_name, at, target) => {
    const { served, outside } = await folderWithOutside();
    await mkdir(path.dirname(path.join(served, at)), { recursive: true });
    await symlink(target(outside), path.join(served, at));
    await expect(startServer({ dir: served, port: 0 })).rejects.toThrow(
      `${path.join(served, at)} is a symbolic link; serve does not follow links in a snapshots folder.`,
    );
  });
});

describe('serve --host 0.0.0.0 (built CLI)', () => {
  it('without --key: refused with exit 2, before listening', async () => {
    const run = await runBuiltCli(['serve', '--dir', EXAMPLES, '--port', '0', '--host', '0.0.0.0'], { cwd: EXAMPLES });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(
      'Refusing to serve on 0.0.0.0 with the public test key: anyone who can reach this machine could read every served prompt.',
    );
    expect(run.stderr).toContain('--insecure-test-key');
  });

  it.each([
    ['--insecure-test-key', ['--insecure-test-key'], 'with the public test key'],
    ['--key', ['--key', 'sk_test_ExposedServeKey000000000000000000000000000000'], 'with a valid key'],
  ])('with %s: warns, prints the bound address, answers on loopback', async (_name, flags, who) => {
    const served = await startServe(['--dir', EXAMPLES, '--host', '0.0.0.0', ...flags], EXAMPLES);
    const line = served.line;
    const port = /^promptlock serve listening on http:\/\/0\.0\.0\.0:(\d+) \(14 prompts/.exec(line)?.[1];
    expect(port).toBeDefined();
    expect(served.stderr()).toContain(
      `warning: serving on 0.0.0.0, not loopback: anyone who can reach this machine on port ${port} can call it ${who}. On this machine: http://127.0.0.1:${port}`,
    );
    // Only ever reached through loopback here.
    expect((await fetch(`http://127.0.0.1:${port}/v1/health`)).status).toBe(200);
    expect((await served.stop('SIGTERM')).code).toBe(0);
    expect(served.stderr() + line).not.toContain('ExposedServeKey');
  });
});
