/**
 * Stores of locked prompts, as a sync would have written them, and their generated modules for
 * the generate, render and bundle scenarios, built with the library's `generate`, in two shapes:
 * `short` (3-line prompts with 4 variables, a `prompts.config.ts`) and `long` (the 20-line prompts
 * with 3 variables of lib/served-folder.mjs). `importModule` transpiles the module with esbuild and
 * imports it.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { transform } from 'esbuild';
import { generate } from '../../dist/index.js';
import { benchPrompt, nameOf, packageOf, WORKSPACE } from './served-folder.mjs';

/** `prompts.lock.json` in `dir` for these entries, sorted as sync writes it. */
function writeLockfile(dir, prompts) {
  const sorted = Object.fromEntries(
    Object.keys(prompts)
      .sort()
      .map((key) => [key, prompts[key]]),
  );
  writeFileSync(path.join(dir, 'prompts.lock.json'), `${JSON.stringify({ lockfileVersion: 1, prompts: sorted }, null, 2)}\n`);
}

/** A store of `count` prompts with a few variables each, like a large real workspace. */
export function makeStore(dir, count) {
  const prompts = {};
  for (let i = 0; i < count; i++) {
    const workspace = `team-${i % 10}`;
    const slug = `prompt-${i}`;
    const name = `@${workspace}/${slug}`;
    const snapshot = {
      id: `pmt_${i}`,
      title: `Prompt ${i}`,
      description: `Benchmark prompt number ${i}`,
      tags: ['bench'],
      version: 'v3',
      workspaceSlug: workspace,
      packageName: `${name}:v3`,
      systemPrompt: 'You are a careful assistant. Answer in {{language // ISO code}}.',
      content: [
        `Hello {{customer_name}}, this is prompt ${i}.`,
        'You have {{count:number // Number of unread messages}} unread messages about {{topics:list}}.',
        'Be concise and friendly. Quote `policy ${section}` when it applies */',
      ],
      context: [],
      metadata: { createdAt: 1705400000000 },
    };
    const text = `${JSON.stringify(snapshot, null, 2)}\n`;
    const file = path.join(dir, 'prompts', workspace, `${slug}.json`);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
    prompts[name] = {
      selector: null,
      version: 'v3',
      id: snapshot.id,
      // Recorded as sync records it (docs/generated-module.md).
      exportName: `prompt${i}`,
      integrity: `sha256-${createHash('sha256').update(text).digest('base64')}`,
      variables: [
        { name: 'language', type: 'string', description: 'ISO code' },
        { name: 'customer_name', type: 'string' },
        { name: 'count', type: 'number', hint: 'number', description: 'Number of unread messages' },
        { name: 'topics', type: 'array', hint: 'list' },
      ],
    };
  }
  writeLockfile(dir, prompts);
  // The config as users have it: TypeScript, loaded through cosmiconfig and jiti, whose
  // transpiled code is cached in the user's private cache folder (a temporary one: bench/run.mjs).
  writeFileSync(path.join(dir, 'package.json'), '{ "name": "bench-app", "private": true, "type": "module" }\n');
  mkdirSync(path.join(dir, 'node_modules'), { recursive: true });
  writeFileSync(
    path.join(dir, 'prompts.config.ts'),
    "import { defineConfig } from 'promptlock';\n\nconst output: string = 'src/generated/prompts.ts';\n\nexport default defineConfig({ output });\n",
  );
}

/** A store of `count` 20-line prompts (lockfile + snapshots) as a sync would have written it, and a config. */
function makeLongStore(dir, count) {
  const prompts = {};
  for (let i = 0; i < count; i++) {
    const text = `${JSON.stringify(benchPrompt(i), null, 2)}\n`;
    const file = path.join(dir, 'prompts', WORKSPACE, `${packageOf(i)}.json`);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
    prompts[nameOf(i)] = {
      selector: 'v1',
      version: 'v1',
      id: `pmt_${WORKSPACE}_${i}`,
      integrity: `sha256-${createHash('sha256').update(text).digest('base64')}`,
      variables: [
        { name: 'name_0', type: 'string', hint: 'string', description: 'who' },
        { name: 'name_1', type: 'string' },
        { name: 'name_2', type: 'string' },
      ],
    };
  }
  writeFileSync(path.join(dir, 'prompts.lock.json'), `${JSON.stringify({ lockfileVersion: 1, prompts }, null, 2)}\n`);
  // Every default: prompts.lock.json, prompts/, src/generated/prompts.ts.
  writeFileSync(path.join(dir, 'prompts.config.json'), '{}\n');
}

export const SHAPES = {
  short: {
    make: makeStore,
    functionName: (i) => `prompt${i}`,
    snapshotFile: (snapshotsDir, i) => path.join(snapshotsDir, `team-${i % 10}`, `prompt-${i}.json`),
    variables: { customer_name: 'Ada', count: 3, topics: ['billing', 'login'], language: 'en' },
  },
  long: {
    make: makeLongStore,
    functionName: (i) => `prompt${String(i).padStart(5, '0')}`,
    snapshotFile: (snapshotsDir, i) => path.join(snapshotsDir, WORKSPACE, `${packageOf(i)}.json`),
    variables: { name_0: 'Ada', name_1: 'Bob', name_2: 'Cy' },
  },
};

export async function generatedModule(dir, count, shape = 'short') {
  SHAPES[shape].make(dir, count);
  const outputPath = path.join(dir, 'src', 'generated', 'prompts.ts');
  await generate({ cwd: dir, env: {} });
  return { outputPath, snapshotsDir: path.join(dir, 'prompts') };
}

/** Transpiles the module to `.mjs` next to it and imports it. */
export async function importModule(outputPath) {
  const { code } = await transform(readFileSync(outputPath, 'utf8'), { loader: 'ts', format: 'esm', target: 'node20' });
  const file = outputPath.replace(/\.ts$/, '.mjs');
  writeFileSync(file, code);
  return import(pathToFileURL(file).href);
}

/** Prompt `index`'s snapshot, its texts joined back into strings. */
export function readSnapshot(snapshotsDir, index, shape = 'short') {
  const snapshot = JSON.parse(readFileSync(SHAPES[shape].snapshotFile(snapshotsDir, index), 'utf8'));
  for (const key of ['content', 'systemPrompt', 'critiquePrompt']) {
    if (Array.isArray(snapshot[key])) snapshot[key] = snapshot[key].join('\n');
  }
  return snapshot;
}
