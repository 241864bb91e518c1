/** The README's main command and the committed example outputs. */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBuiltCli } from './helpers/cli.js';
import { storeTree } from './helpers/project.js';

const root = path.resolve('.');

function runDemo(): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env, CI: 'true', NO_COLOR: '1' };
    delete env.PROMPTLOCK_API_KEY;
    delete env.BAYT_API_KEY;
    delete env.PROMPTLOCK_BASE_URL;
    const child = spawn(process.execPath, ['scripts/demo.mjs'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (out += chunk));
    const timer = setTimeout(() => child.pid && process.kill(child.pid, 'SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

describe('npm run demo', () => {
  it('syncs the repo config from the embedded service, checks it, renders a prompt, and leaves the committed example unchanged', async () => {
    const example = path.join(root, 'examples/app');
    const before = await storeTree(example);
    const { code, out } = await runDemo();
    expect(out).toContain('local Prompt Service on http://127.0.0.1:');
    expect(out).toMatch(/prompts up to date|Synced \d+ prompts/);
    expect(out).toContain('lockfile, snapshots and module agree');
    expect(out).toContain('Hello Ada,');
    expect(out).toContain('You have 3 unread messages about a late refund.');
    expect(code).toBe(0);
    // The committed example is what the demo produces: re-running it changes no byte.
    expect(await storeTree(example)).toEqual(before);
  });

  it('the committed example passes check offline, and its module is the one generate builds', async () => {
    const run = await runBuiltCli(['check'], { cwd: root });
    expect(run.stderr).toContain('agree');
    expect(run.code).toBe(0);
    const lock = JSON.parse(await readFile(path.join(root, 'examples/app/prompts.lock.json'), 'utf8'));
    expect(lock.prompts['@acme/onboarding'].version).toBe('v3');
    expect(lock.prompts['@acme/code-review'].version).toBe('v0');
    expect(lock.prompts['@globex/welcome'].selector).toBeNull();
  });
});
