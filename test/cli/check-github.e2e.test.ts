/**
 * `check --format github`: each problem kind becomes a workflow annotation on the file and line it
 * concerns (the snapshot, the lockfile entry, the config entry, the module), the job summary lists
 * them when GITHUB_STEP_SUMMARY is set, and the exit code is check's own. Built CLI against
 * `promptlock serve`; the escaping of the workflow-command format is table-tested.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { annotation, escapeData, escapeProperty } from '../../src/cli/github.js';
import { LOCAL_TEST_KEY } from '../../src/secrets.js';
import { runCliInProcess as runBuiltCli } from '../helpers/cli.js';
import { disposables } from '../helpers/disposables.js';

const { project: makeProject, serve } = disposables();
const EXAMPLES = path.resolve('examples/workspace');
let dir: string;

const check = (env: Record<string, string> = {}) =>
  runBuiltCli(['check', '--format', 'github', '--no-typecheck'], { cwd: dir, env: { GITHUB_WORKSPACE: dir, ...env } });

/** Edits a file for one test, then puts it back as it was. */
async function editing(file: string, edit: (text: string) => string, body: () => Promise<void>): Promise<void> {
  const full = path.join(dir, file);
  const original = await readFile(full, 'utf8');
  await writeFile(full, edit(original));
  try {
    await body();
  } finally {
    await writeFile(full, original);
  }
}

const lineOf = (text: string, needle: string) => text.split('\n').findIndex((l) => l.includes(needle)) + 1;

beforeAll(async () => {
  const server = await serve({ dir: EXAMPLES });
  dir = await makeProject({ prompts: ['@acme/support-reply', '@acme/welcome'], output: 'src/prompts.ts' });
  const sync = await runBuiltCli(['sync'], { cwd: dir, env: { PROMPTLOCK_API_KEY: LOCAL_TEST_KEY, PROMPTLOCK_BASE_URL: server.url } });
  expect(sync.code, sync.stderr).toBe(0);
});

describe('check --format github', () => {
  it('prints no annotation when everything agrees', async () => {
    const run = await check();
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('');
  });

  it('a broken snapshot: on the snapshot file', async () => {
    await editing(
      'prompts/acme/welcome.json',
      (t) => t.replace('"title"', '"title": 1, "x"'),
      async () => {
        const run = await check();
        expect(run.code).toBe(1);
        expect(run.stdout).toMatch(/^::error file=prompts\/acme\/welcome\.json,line=1,title=promptlock::@acme\/welcome: /m);
      },
    );
  });

  it('a lockfile entry that disagrees with its snapshot: on the entry line of the lockfile', async () => {
    const lock = await readFile(path.join(dir, 'prompts.lock.json'), 'utf8');
    const line = lineOf(lock, '"@acme/support-reply": {');
    await editing(
      'prompts.lock.json',
      (t) => t.replace(/"id": "[^"]+"/, '"id": "pmt_forged"'),
      async () => {
        const run = await check();
        expect(run.code).toBe(1);
        expect(run.stdout).toContain(
          `::error file=prompts.lock.json,line=${line},title=promptlock::@acme/support-reply: the lockfile's id`,
        );
      },
    );
  });

  it('a config entry the lockfile lacks: on the config line; the summary lists it', async () => {
    const summary = path.join(dir, 'summary.md');
    await writeFile(summary, '');
    await editing(
      'prompts.config.json',
      (t) => t.replace('"@acme/welcome"', '"@acme/welcome",\n    "@acme/onboarding"'),
      async () => {
        const config = await readFile(path.join(dir, 'prompts.config.json'), 'utf8');
        const run = await check({ GITHUB_STEP_SUMMARY: summary });
        expect(run.code).toBe(1);
        const line = lineOf(config, '@acme/onboarding');
        expect(run.stdout).toContain(
          `::error file=prompts.config.json,line=${line},title=promptlock::@acme/onboarding is in the config but not in the lockfile: run \`promptlock sync\``,
        );
        const text = await readFile(summary, 'utf8');
        expect(text).toContain('### promptlock check');
        expect(text).toContain(`| \`prompts.config.json:${lineOf(config, '@acme/onboarding')}\` | \`\` @acme/onboarding is in the config`);
      },
    );
  });

  it('a hand-edited module: on the module file', async () => {
    await editing(
      'src/prompts.ts',
      (t) => `${t}\n// edited\n`,
      async () => {
        const run = await check();
        expect(run.code).toBe(1);
        expect(run.stdout).toMatch(/^::error file=src\/prompts\.ts,line=1,title=promptlock::the module src\/prompts\.ts does not match/m);
      },
    );
  });
});

describe('the workflow-command format', () => {
  it.each([
    ['plain', 'a b', 'a b', 'a b'],
    ['percent first', '100%', '100%25', '100%25'],
    ['new lines cannot start a command', 'x\n::error::y\r', 'x%0A::error::y%0D', 'x%0A%3A%3Aerror%3A%3Ay%0D'],
    ['property separators', 'a,b:c', 'a,b:c', 'a%2Cb%3Ac'],
  ])('%s', (_name, text, data, property) => {
    expect(escapeData(text)).toBe(data);
    expect(escapeProperty(text)).toBe(property);
  });

  it('an annotation escapes its message and properties', () => {
    expect(annotation({ level: 'error', file: 'a,b.json', line: 3, title: 'promptlock', message: 'bad\n::warning::x' })).toBe(
      '::error file=a%2Cb.json,line=3,title=promptlock::bad%0A::warning::x',
    );
  });
});
