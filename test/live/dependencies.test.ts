/**
 * promptlock/live stays a small server runtime: nothing it imports (followed through every
 * relative import) is CLI, sync or codegen code or a heavy package, and ioredis is only ever
 * imported dynamically, so apps without Redis never load it. jsonc-parser is loaded (by require)
 * only to say where a snapshot that is not valid JSON is wrong (src/util/json-location.ts).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

it('imports no CLI, sync or codegen module and only undici, zod and node built-ins statically, the rest lazily', () => {
  const files = new Set<string>();
  const packages = new Set<string>();
  const dynamic = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/^(?:import|export)\s[^;]*?from\s+'([^']+)'/gms)) {
      const target = match[1]!;
      if (match[0].startsWith('import type') || match[0].startsWith('export type')) continue;
      if (target.startsWith('.')) visit(path.resolve(path.dirname(file), target.replace(/\.js$/, '.ts')));
      else packages.add(target);
    }
    // A dynamic import() or a require made by createRequire; `typeof import('x')` is a type.
    for (const match of text.matchAll(/(?<!typeof )import\('([^']+)'\)|createRequire\([^)]*\)\('([^']+)'\)/g)) {
      dynamic.add((match[1] ?? match[2])!);
    }
  };
  visit(path.join(SRC, 'live/index.ts'));
  const folders = [...files].map((file) => path.relative(SRC, file).split(path.sep)[0]);
  for (const forbidden of ['cli', 'sync', 'codegen', 'init', 'watch/watch.ts', 'server']) {
    expect(folders, forbidden).not.toContain(forbidden);
  }
  expect([...files].map((file) => path.relative(SRC, file))).not.toContain(path.join('watch', 'watch.ts'));
  expect([...packages].filter((name) => !name.startsWith('node:')).sort()).toEqual(['undici', 'zod']);
  expect([...dynamic].sort()).toEqual(['ioredis', 'jsonc-parser']);
});

it('is published as promptlock/live, and importing it does not load ioredis', () => {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  expect(existsSync(path.join(root, 'dist/live.js')), 'dist/live.js is needed: run `npx tsup` first (npm test builds)').toBe(true);
  const script = `
import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent('export async function resolve(s, c, next) { if (s === "ioredis") throw new Error("ioredis was loaded"); return next(s, c); }'));
const live = await import('promptlock/live');
console.log(Object.keys(live).sort().join(','));
`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, encoding: 'utf8', timeout: 30_000 });
  expect(out.trim()).toBe('createLivePrompts,memoryStore,redisStore');
});
