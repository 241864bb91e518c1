/** `generate()` on a store on disk, and the `promptlock generate` command through runCli. */
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { generateModule } from '../../src/codegen/index.js';
import { LockfileError } from '../../src/errors.js';
import { generate, renderModuleFromStore } from '../../src/sync/generate.js';
import { memoryIO } from '../helpers/memory-io.js';
import { codegenPrompt, tempDir, writeStore } from './helpers.js';

const PROMPTS = [
  codegenPrompt('@acme/support-reply', { content: 'Dear {{name}}' }),
  codegenPrompt('@acme/welcome', { content: 'Welcome!' }),
];

let dir: string;
let remove: () => Promise<void>;
let store: { lockfilePath: string; snapshotsDir: string; rootDir: string };
let outputPath: string;
beforeEach(async () => {
  ({ dir, remove } = await tempDir('generate'));
  store = await writeStore(dir, PROMPTS);
  outputPath = path.join(dir, 'src', 'generated', 'prompts.ts');
});
afterEach(() => remove());

describe('the generated text', () => {
  // The module of a large workspace is held as one string: a single character the generator adds
  // past Latin-1 would double its memory, so what the generator itself writes stays ASCII.
  it('is ASCII wherever the prompts are, in every file format', () => {
    const prompts = [
      codegenPrompt('@acme/support-reply', {
        title: 'Support reply',
        description: 'Answers a customer ticket',
        systemPrompt: 'Answer in {{language // ISO code}}.',
        content: 'Hello {{customer_name:string // The first name}}, {{count:number}} messages about `{{topic}}` ${x} */',
      }),
      codegenPrompt('@acme/untitled', { title: '', description: null, content: 'No title' }),
    ];
    for (const file of ['ts', 'js', 'dts'] as const) {
      const text = generateModule(prompts, { file });
      expect(text, file).toContain('Support reply (@acme/support-reply:v1): Answers a customer ticket');
      expect([...text].filter((c) => c.charCodeAt(0) > 0x7e && c !== '\n').join(''), file).toBe('');
    }
  });
});

describe('generate', () => {
  it('writes the module, then finds it up to date', async () => {
    expect(await generate({ ...store, outputPath })).toEqual({ outputPath, written: true, count: 2, mismatched: [] });
    expect(await readFile(outputPath, 'utf8')).toBe(generateModule(PROMPTS));
    const { mtimeMs } = await stat(outputPath);
    expect(await generate({ ...store, outputPath })).toEqual({ outputPath, written: false, count: 2, mismatched: [] });
    expect((await stat(outputPath)).mtimeMs).toBe(mtimeMs);
    expect((await readdir(path.dirname(outputPath))).sort()).toEqual(['prompts.ts']);
  });

  it('is up to date with a CRLF lockfile, and notices a deleted snapshot', async () => {
    await generate({ ...store, outputPath });
    const lockfile = await readFile(store.lockfilePath, 'utf8');
    await writeFile(store.lockfilePath, lockfile.replace(/\n/g, '\r\n'));
    expect(await generate({ ...store, outputPath })).toEqual({ outputPath, written: false, count: 2, mismatched: [] });
    await rm(path.join(store.snapshotsDir, 'acme', 'welcome.json'));
    await expect(generate({ ...store, outputPath })).rejects.toThrow(/welcome\.json of @acme\/welcome not found/);
  });

  it('builds from a hand-edited snapshot as it is, and names it as not matching the lockfile', async () => {
    await generate({ ...store, outputPath });
    const file = path.join(store.snapshotsDir, 'acme', 'welcome.json');
    const edited = JSON.parse(await readFile(file, 'utf8'));
    edited.title = 'Edited by hand';
    await writeFile(file, JSON.stringify(edited, null, 2));
    const result = await generate({ ...store, outputPath });
    expect(result).toMatchObject({ written: true, mismatched: ['@acme/welcome'] });
    expect(await readFile(outputPath, 'utf8')).toContain('Edited by hand');
  });

  it('a snapshot re-indented or with CRLF line endings still matches (integrity is over canonical bytes)', async () => {
    const file = path.join(store.snapshotsDir, 'acme', 'welcome.json');
    const text = await readFile(file, 'utf8');
    await writeFile(file, JSON.stringify(JSON.parse(text), null, 4).replace(/\n/g, '\r\n'));
    expect((await generate({ ...store, outputPath })).mismatched).toEqual([]);
  });

  it('rebuilds when the lockfile changes', async () => {
    await generate({ ...store, outputPath });
    const changed = [PROMPTS[0]!, codegenPrompt('@acme/welcome', { content: 'Welcome back!', version: 'v2' })];
    await writeStore(dir, changed);
    expect(await generate({ ...store, outputPath })).toMatchObject({ written: true });
    expect(await readFile(outputPath, 'utf8')).toBe(generateModule(changed));
  });

  it('rewrites a module edited by hand, even with identical inputs', async () => {
    await generate({ ...store, outputPath });
    const text = await readFile(outputPath, 'utf8');
    await writeFile(outputPath, text.replace('Welcome!', 'Welcome, edited!'));
    expect(await generate({ ...store, outputPath })).toMatchObject({ written: true });
    expect(await readFile(outputPath, 'utf8')).toBe(generateModule(PROMPTS));
  });

  it('says which output could not be written', async () => {
    await mkdir(outputPath, { recursive: true });
    await expect(generate({ ...store, outputPath })).rejects.toThrow(/^Cannot write the module to .*prompts\.ts: /);
    expect(await readdir(path.dirname(outputPath))).toEqual(['prompts.ts']);
  });

  it('renderModuleFromStore returns the same text without writing', async () => {
    expect(await renderModuleFromStore(store)).toBe(generateModule(PROMPTS));
    expect(existsSync(outputPath)).toBe(false);
  });

  const broken: Array<[string, { damage: () => Promise<void>; want: RegExp }]> = [
    ['a missing lockfile', { damage: () => rm(store.lockfilePath), want: /^Lockfile .*prompts\.lock\.json not found\.$/ }],
    [
      'a lockfile that is not JSON',
      { damage: () => writeFile(store.lockfilePath, '{ "lockfileVersion": '), want: /^Lockfile .* is not valid JSON/ },
    ],
    [
      'a lockfile with git conflict markers',
      {
        damage: () => writeFile(store.lockfilePath, '{\n<<<<<<< HEAD\n'),
        want: /^Lockfile .* has unresolved git merge conflict markers \(line 2\)\.$/,
      },
    ],
    [
      'a missing snapshot',
      {
        damage: () => rm(path.join(store.snapshotsDir, 'acme', 'welcome.json')),
        want: /^Snapshot .*acme[/\\]welcome\.json of @acme\/welcome not found\.$/,
      },
    ],
    [
      'a damaged snapshot',
      {
        damage: () => writeFile(path.join(store.snapshotsDir, 'acme', 'welcome.json'), '{'),
        want: /^Snapshot .*welcome\.json is not valid JSON/,
      },
    ],
    [
      'two missing snapshots, reported together',
      {
        damage: () => rm(path.join(store.snapshotsDir, 'acme'), { recursive: true }),
        want: /^2 snapshots are missing or damaged:\n {2}Snapshot .*support-reply\.json of @acme\/support-reply not found\.\n {2}Snapshot .*welcome\.json of @acme\/welcome not found\.$/,
      },
    ],
    [
      'a snapshot field of the wrong type',
      {
        damage: async () => {
          const file = path.join(store.snapshotsDir, 'acme', 'welcome.json');
          const data = JSON.parse(await readFile(file, 'utf8'));
          await writeFile(file, JSON.stringify({ ...data, tags: 'one' }));
        },
        want: /^Snapshot .*welcome\.json: field "tags" must be an array of strings\.$/,
      },
    ],
  ];
  it.each(broken)('throws LockfileError for %s and writes nothing', async (_, { damage, want }) => {
    await damage();
    const error = await generate({ ...store, outputPath }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LockfileError);
    expect((error as LockfileError).message).toMatch(want);
    expect((error as LockfileError).hint).toMatch(/promptlock sync/);
    expect(existsSync(outputPath)).toBe(false);
  });
});

describe('promptlock generate', () => {
  async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    const io = memoryIO({ env: { NO_COLOR: '1' }, cwd: dir });
    const code = await runCli(args, io);
    return { code, stdout: io.out(), stderr: io.err() };
  }

  it('generates, then says up to date; --json prints the summary', async () => {
    await writeFile(path.join(dir, 'prompts.config.json'), '{}');
    expect(await cli(['generate'])).toEqual({
      code: 0,
      stdout: '',
      stderr: `✔ Generated ${path.join('src', 'generated', 'prompts.ts')} (2 prompts)\n`,
    });
    expect(await cli(['generate'])).toEqual({
      code: 0,
      stdout: '',
      stderr: `✔ ${path.join('src', 'generated', 'prompts.ts')} is up to date\n`,
    });
    const json = await cli(['--json', 'generate', '--force']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({ outputPath, written: false, count: 2, mismatched: [] });
  });

  it('before the first sync (no lockfile) writes a module with no prompts, says why and exits 0', async () => {
    await writeFile(path.join(dir, 'prompts.config.json'), '{}');
    await rm(store.lockfilePath);
    const result = await cli(['generate']);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^warning: prompts\.lock\.json does not exist yet: wrote \S+ with no prompts\. Run `promptlock sync`/);
  });
});
