#!/usr/bin/env node
/**
 * Benchmark of `promptlock generate`: stores of 1,000 and 10,000 prompts with a `prompts.config.ts`,
 * wall time of the built CLI (process start and config loading included) for a full generate and
 * for the up-to-date no-op, next to baselines measured in the same run (`node -e ""` and
 * `promptlock --version`).
 *
 *   npm run build && node bench/codegen.mjs      (or through `npm run bench`, via run())
 *
 * Guards: ≤ 1.0 s for 10,000 prompts, ≤ 0.3 s for the no-op (which checks every snapshot's stamp).
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'promptlock.js');
const GOALS = { full: 1.0, noop: 0.3 };

/** `prompts.lock.json` in `dir` for these entries, sorted as sync writes it. */
export function writeLockfile(dir, prompts) {
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
      // Recorded as sync records it (README, "The generated module").
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

/** Wall time of one process, in seconds; throws when it fails. */
function time(args, cwd) {
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', CI: '1' } });
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  if (result.status !== 0) throw new Error(`node ${args.join(' ')} failed (${result.status}):\n${result.stderr}`);
  return seconds;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function measure(runs, before, args, cwd) {
  const samples = [];
  for (let i = 0; i < runs; i++) {
    before?.();
    samples.push(time(args, cwd));
  }
  return median(samples);
}

/**
 * Runs the benchmark and returns its rows (seconds are medians). `sizes` and `runs` can be lowered
 * for a quick look.
 */
export function run({ sizes = [1_000, 10_000], runs = 5 } = {}) {
  const rows = [];
  const nodeStart = measure(runs, undefined, ['-e', ''], ROOT);
  const cliStart = measure(runs, undefined, [BIN, '--version'], ROOT);
  rows.push({ name: 'baseline: node -e ""', prompts: 0, seconds: nodeStart, goal: undefined });
  rows.push({ name: 'baseline: promptlock --version', prompts: 0, seconds: cliStart, goal: undefined });
  for (const size of sizes) {
    const dir = mkdtempSync(path.join(tmpdir(), `promptlock-bench-codegen-${size}-`));
    try {
      makeStore(dir, size);
      const output = path.join(dir, 'src', 'generated', 'prompts.ts');
      const full = measure(runs, () => rmSync(output, { force: true }), [BIN, 'generate'], dir);
      const noop = measure(runs, undefined, [BIN, 'generate'], dir);
      rows.push({
        name: `generate, ${size.toLocaleString('en-US')} prompts`,
        prompts: size,
        seconds: full,
        goal: size >= 10_000 ? GOALS.full : undefined,
      });
      rows.push({
        name: `generate no-op, ${size.toLocaleString('en-US')} prompts`,
        prompts: size,
        seconds: noop,
        goal: size >= 10_000 ? GOALS.noop : undefined,
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  for (const row of rows) {
    row.vsNode = row.seconds / nodeStart;
    row.vsCli = row.seconds / cliStart;
    // What the command itself costs beyond loading the CLI.
    row.overCli = row.seconds - cliStart;
    row.met = row.goal === undefined ? undefined : row.seconds <= row.goal;
  }
  return rows;
}

function print(rows) {
  const lines = [['case', 'median', '× node', '× --version', '− --version', 'goal'].join(' | ')];
  for (const row of rows) {
    const goal = row.goal === undefined ? '' : `≤ ${row.goal} s ${row.met ? 'met' : 'MISSED'}`;
    const over = `${row.overCli >= 0 ? '+' : ''}${row.overCli.toFixed(3)} s`;
    lines.push([row.name, `${row.seconds.toFixed(3)} s`, row.vsNode.toFixed(1), row.vsCli.toFixed(1), over, goal].join(' | '));
  }
  console.log(lines.join('\n'));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const runs = Number(process.env.BENCH_RUNS) || 5;
  print(run({ runs }));
}
