import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { LOCAL_TEST_KEY, maskKey, redact } from '../../src/secrets.js';
import { VERSION } from '../../src/version.js';
import { memoryIO } from '../helpers/memory-io.js';

function io(env: NodeJS.ProcessEnv = {}) {
  const memory = memoryIO({ env });
  return { io: memory, text: () => ({ out: memory.out(), err: memory.err() }) };
}

describe('runCli', () => {
  it.each([
    ['--help', 0],
    ['--version', 0],
    ['--bogus', 2],
    ['sync --bogus', 2],
    ['diff --format html', 2],
    ['no-such-command', 2],
    ['', 2],
  ] as const)('"%s" exits %i', async (args, code) => {
    const t = io();
    expect(await runCli(args ? args.split(' ') : [], t.io)).toBe(code);
  });

  it('prints the package version', async () => {
    const t = io();
    await runCli(['--version'], t.io);
    const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
    expect(t.text().out.trim()).toBe(pkg.version);
    expect(VERSION).toBe(pkg.version);
  });

  it('a config error exits 2 and says which option and what is allowed', async () => {
    const { mkdtemp, writeFile, rm } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const path = await import('node:path');
    const dir = await mkdtemp(path.join(tmpdir(), 'promptlock-cli-'));
    await writeFile(path.join(dir, 'prompts.config.json'), JSON.stringify({ concurrency: 0 }));
    const t = io();
    t.io.cwd = dir;
    expect(await runCli(['generate'], t.io)).toBe(2);
    expect(t.text().err).toContain('Invalid value for option "concurrency"');
    await rm(dir, { recursive: true, force: true });
  });

  it('--json usage errors print one JSON document too', async () => {
    const t = io();
    expect(await runCli(['--json', 'sync', '--bogus'], t.io)).toBe(2);
    expect(JSON.parse(t.text().out)).toMatchObject({
      command: 'sync',
      ok: false,
      exitCode: 2,
      error: { code: 'usage', message: "unknown option '--bogus'" },
    });
  });

  it('--json failures still print one JSON document', async () => {
    const { mkdtemp, rm } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const path = await import('node:path');
    const dir = await mkdtemp(path.join(tmpdir(), 'promptlock-cli-'));
    const t = io();
    t.io.cwd = dir;
    expect(await runCli(['--json', 'generate'], t.io)).toBe(2);
    const doc = JSON.parse(t.text().out);
    expect(doc).toMatchObject({ command: 'generate', ok: false, exitCode: 2 });
    expect(doc.error.message).toMatch(/no prompts\.config\.\* found/);
    await rm(dir, { recursive: true, force: true });
  });
});

describe('secrets', () => {
  it('a key found after start-up (from .env) is masked in every later line', async () => {
    const { createLogger } = await import('../../src/cli/logger.js');
    const t = memoryIO();
    const logger = createLogger({ stdout: t.stdout, stderr: t.stderr, quiet: false, verbose: false, color: false, secrets: [] });
    const key = 'corp-issued-secret-0123456789abcdef';
    logger.addSecret(key);
    logger.error(`the service said: bad key ${key}`);
    expect(t.err()).toContain('the service said: bad key');
    expect(t.err()).not.toContain(key);
  });

  const key = `sk_live_${'a'.repeat(38)}wxyz`;
  it.each([
    [key, 'sk_live…wxyz'],
    ['sk_test_PromptlockLocalTestKey00000000000000000000', 'sk_test…0000'],
  ])('masks %s as %s', (given, want) => {
    expect(maskKey(given)).toBe(want);
  });
  it('redacts every occurrence', () => {
    expect(redact(`a ${key} b ${key}`, [key])).toBe('a sk_live…wxyz b sk_live…wxyz');
  });

  it('also masks any other key-shaped token (a key pasted into a config value), but not the public test key', () => {
    const pasted = `sk_test_${'P'.repeat(38)}9876`;
    expect(redact(`url https://a.io/?k=${pasted}&x=1`, [])).toBe('url https://a.io/?k=sk_test…9876&x=1');
    expect(redact(`serve: test key ${LOCAL_TEST_KEY}`, [])).toBe(`serve: test key ${LOCAL_TEST_KEY}`);
    expect(redact('sk_live_short', [])).toBe('sk_live_short');
  });
});
