/**
 * Peak memory: the built CLI's `sync` of 10,000 prompts into an empty project (concurrency 64, no
 * added latency), its peak resident set size read by the CLI process itself at exit
 * (`process.resourceUsage().maxRSS`, through a `--import` hook). Baseline: the peak RSS of
 * `promptlock --version` (Node plus the CLI's start-up modules).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeProject, writeServedFolder } from '../lib/served-folder.mjs';
import { startService } from '../lib/service.mjs';
import { median } from '../lib/stats.mjs';

const BIN = fileURLToPath(new URL('../../bin/promptlock.js', import.meta.url));
const PROMPTS = 10_000;
const GOAL_MB = 300;
/** Where the memory goes: docs/performance.md, "Where the time goes". */
const CAUSE = 'see docs/performance.md, "Where the time goes"';

/** Runs the built CLI and resolves to its peak RSS in MB (and its exit code). */
function peakRss(args, cwd, hook) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', hook, BIN, ...args], {
      cwd,
      env: { ...process.env, CI: 'true', NO_COLOR: '1', PROMPTLOCK_API_KEY: 'sk_test_PromptlockLocalTestKey00000000000000000000' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (c) => (stderr += c));
    const timer = setTimeout(() => child.exitCode === null && process.kill(child.pid, 'SIGKILL'), 300_000);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      const match = /PEAK_RSS_KB=(\d+)/.exec(stderr);
      if (code !== 0 || !match) reject(new Error(`promptlock ${args.join(' ')} exited ${code}: ${stderr.slice(-800)}`));
      else resolve(Number(match[1]) / 1024);
    });
  });
}

export async function run({ runs = 3, log = () => {} } = {}) {
  const work = mkdtempSync(path.join(tmpdir(), 'promptlock-bench-memory-'));
  const hook = path.join(work, 'peak-rss.mjs');
  writeFileSync(hook, "process.on('exit', () => process.stderr.write(`PEAK_RSS_KB=${process.resourceUsage().maxRSS}\\n`));\n");
  const service = await startService({
    dir: writeServedFolder(path.join(work, 'served'), PROMPTS),
    rateLimits: { authenticated: { perMinute: 10_000_000, perHour: 100_000_000 } },
  });
  try {
    const floor = await peakRss(['--version'], work, hook);
    const samples = [];
    // A 10,000-prompt sync takes a while on 2 shared cores: at most two runs.
    for (let i = 0; i < Math.min(runs, 2); i++) {
      const dir = writeProject(path.join(work, `project-${i}`), { baseUrl: service.url, concurrency: 64 });
      const start = performance.now();
      samples.push(await peakRss(['sync', '--quiet'], dir, hook));
      log(
        `sync of ${PROMPTS.toLocaleString('en-US')} prompts run ${i + 1}: peak RSS ${samples[i].toFixed(0)} MB, ${((performance.now() - start) / 1000).toFixed(1)} s`,
      );
      rmSync(dir, { recursive: true, force: true });
    }
    const peak = Math.max(...samples);
    return [
      {
        scenario: 'memory (10,000 prompts, cold sync, CLI)',
        figure: 'peak RSS (worst run)',
        value: peak,
        unit: 'MB',
        baseline: floor,
        baselineLabel: 'promptlock --version',
        ratio: peak / floor,
        ratioLabel: '× start-up',
        goal: `≤ ${GOAL_MB} MB`,
        met: peak <= GOAL_MB,
        note:
          `every run: ${samples.map((s) => `${s.toFixed(0)} MB`).join(', ')}; median ${median(samples).toFixed(0)} MB` +
          (peak <= GOAL_MB ? '' : `; ${CAUSE}`),
      },
    ];
  } finally {
    await service.close();
    rmSync(work, { recursive: true, force: true });
  }
}
