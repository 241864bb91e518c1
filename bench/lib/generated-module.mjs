/**
 * Generated prompt modules for the render and bundle scenarios, built with the library's
 * `generate`, in two shapes: `short` (the 3-line prompts of bench/codegen.mjs's store) and `long`
 * (the 20-line prompts with 3 variables of lib/served-folder.mjs). `importModule` transpiles the
 * module with esbuild and imports it.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { transform } from 'esbuild';
import { generate } from '../../dist/index.js';
import { makeStore } from '../codegen.mjs';
import { benchPrompt, nameOf, packageOf, WORKSPACE } from './served-folder.mjs';

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
