/**
 * `promptlock generate` of 1,000 prompts with a `prompts.config.ts`, as an app's `prepare` runs it:
 * wall time of the built CLI, process start and config loading (cosmiconfig, jiti) included.
 * Two guards: the no-op (module already up to date: every run reads and verifies every snapshot
 * and builds the module, then writes nothing) ≤ 0.5 s, and a fresh clone's (no module yet)
 * ≤ 1.0 s. Baseline in the same run: `promptlock --version` (and `node -e ""` in the note).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeStore } from '../lib/generated-module.mjs';
import { median, thousands } from '../lib/stats.mjs';

const BIN = fileURLToPath(new URL('../../bin/promptlock.js', import.meta.url));
const PROMPTS = 1_000;
const GOALS = { noop: 500, fresh: 1_000 };

/** Wall time of one process, in ms; throws when it fails. */
function time(args, cwd) {
  const start = performance.now();
  const result = spawnSync(process.execPath, args, { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', CI: '1' } });
  const ms = performance.now() - start;
  if (result.status !== 0) throw new Error(`node ${args.join(' ')} failed (${result.status}):\n${result.stderr}`);
  return ms;
}

/** Median of `runs` timings, `before` run ahead of each. */
function measure(runs, args, cwd, before = () => {}) {
  return median(
    Array.from({ length: runs }, () => {
      before();
      return time(args, cwd);
    }),
  );
}

export async function run({ runs = 3, log = () => {} } = {}) {
  const dir = mkdtempSync(path.join(tmpdir(), 'promptlock-bench-codegen-'));
  try {
    makeStore(dir, PROMPTS);
    const output = path.join(dir, 'src', 'generated', 'prompts.ts');
    const nodeStart = measure(runs, ['-e', ''], dir);
    const cliStart = measure(runs, [BIN, '--version'], dir);
    const fresh = measure(runs, [BIN, 'generate'], dir, () => rmSync(output, { force: true }));
    const noop = measure(runs, [BIN, 'generate'], dir);
    log(`node -e "" ${Math.round(nodeStart)} ms, promptlock --version ${Math.round(cliStart)} ms`);
    log(`generate, no module ${Math.round(fresh)} ms; no-op ${Math.round(noop)} ms`);
    const row = (figure, value, goal) => ({
      scenario: `generate (${thousands(PROMPTS)} prompts, built CLI, prompts.config.ts, process start included)`,
      figure,
      value,
      unit: 'ms',
      baseline: cliStart,
      baselineLabel: 'promptlock --version',
      ratio: value / cliStart,
      ratioLabel: '× CLI start',
      goal: `≤ ${goal} ms`,
      met: value <= goal,
      note: `median of ${runs}; node -e "" takes ${Math.round(nodeStart)} ms; ${Math.round(value - cliStart)} ms beyond CLI start`,
    });
    return [row('no-op (module up to date)', noop, GOALS.noop), row('no module (a fresh clone)', fresh, GOALS.fresh)];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
