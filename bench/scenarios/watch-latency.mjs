/**
 * Watch latency: `promptlock watch` (the built CLI, a child process) in a project of
 * 1,000 prompts; one snapshot file is edited, and the time until the module file holds the edit
 * is measured (polling its stat every 2 ms). The prompts are pinned, so the watcher's polls of the
 * service send nothing; the poll interval is an hour anyway. The child is stopped by its PID.
 * Alongside: `generate()` timed in this process on the same store (what the
 * watcher runs after its debounce), to tell the regeneration from the rest.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { generate, LOCAL_TEST_KEY } from '../../dist/index.js';
import { runSync } from '../lib/run-sync.mjs';
import { nameOf, packageOf, WORKSPACE, writeProject, writeServedFolder } from '../lib/served-folder.mjs';
import { startService } from '../lib/service.mjs';
import { median, percentile, thousands } from '../lib/stats.mjs';

const BIN = fileURLToPath(new URL('../../bin/promptlock.js', import.meta.url));
const PROMPTS = 1_000;
const GOAL_MS = 150;
const SAMPLES = 25;
const SAMPLE_TIMEOUT_MS = 10_000;
const READY_TIMEOUT_MS = 60_000;
/** The watcher's debounce (src/watch/watch.ts, `debounceMs` default); not settable from the CLI. */
const DEBOUNCE_MS = 25;

function stamp(file) {
  try {
    const s = statSync(file);
    return `${s.ino}:${s.mtimeMs}:${s.size}`;
  } catch {
    return 'missing';
  }
}

/** Starts a watcher (`args` after `node`) and resolves once it says it is watching. */
function startWatcher(project, args) {
  const child = spawn(process.execPath, args, {
    cwd: project,
    env: { ...process.env, PROMPTLOCK_API_KEY: LOCAL_TEST_KEY, CI: '1', NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const ready = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`watch did not get ready in ${READY_TIMEOUT_MS} ms:\n${output}`)), READY_TIMEOUT_MS);
    const onData = (chunk) => {
      output += chunk;
      if (output.includes('Watching for changes')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`watch exited (${code}) before it was ready:\n${output}`));
    });
  });
  return {
    child,
    ready,
    output: () => output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      process.kill(child.pid, 'SIGINT');
      const timer = setTimeout(() => child.exitCode === null && process.kill(child.pid, 'SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Rewrites line 5 of prompt `index`'s content in its snapshot. */
function editSnapshot(snapshotsDir, index, marker) {
  const file = path.join(snapshotsDir, WORKSPACE, `${packageOf(index)}.json`);
  const snapshot = JSON.parse(readFileSync(file, 'utf8'));
  snapshot.content[5] = `Line 5 edited ${marker}`;
  writeFileSync(file, `${JSON.stringify(snapshot, null, 2)}\n`);
}

/** Edits one snapshot and waits until the module contains the edit; returns ms. */
async function sample(snapshotsDir, outputPath, index, marker) {
  const before = stamp(outputPath);
  editSnapshot(snapshotsDir, index, marker);
  const start = performance.now();
  for (;;) {
    const now = stamp(outputPath);
    if (now !== before && readFileSync(outputPath, 'utf8').includes(marker)) return performance.now() - start;
    if (performance.now() - start > SAMPLE_TIMEOUT_MS)
      throw new Error(`the module did not change within ${SAMPLE_TIMEOUT_MS} ms of editing prompt ${index}`);
    await sleep(2);
  }
}

export async function run({ runs = 3, log = () => {} } = {}) {
  const work = mkdtempSync(path.join(tmpdir(), 'promptlock-bench-watch-'));
  const service = await startService({
    dir: writeServedFolder(path.join(work, 'served'), PROMPTS),
    rateLimits: { authenticated: { perMinute: 1_000_000, perHour: 10_000_000 } },
  });
  let watcher;
  try {
    const names = Array.from({ length: PROMPTS }, (_, i) => `${nameOf(i)}:v1`);
    const project = writeProject(path.join(work, 'project'), { baseUrl: service.url, concurrency: 64, prompts: names });
    await runSync(project);
    const snapshotsDir = path.join(project, 'prompts'); // the config's default

    // What the watcher runs after its debounce, timed in this process: one snapshot edited, then
    // generate(). The first run fills the caches, as the watcher's start does.
    const generateMs = [];
    const location = { cwd: project, env: {} }; // loading the JSON config is included
    await generate(location);
    for (let i = 0; i < Math.max(5, runs); i++) {
      editSnapshot(snapshotsDir, 500 + i, `bench-generate-${i}`);
      const start = performance.now();
      await generate(location);
      generateMs.push(performance.now() - start);
    }

    const measure = async (args, label) => {
      watcher = startWatcher(project, args);
      await watcher.ready;
      const latencies = [];
      for (let i = 0; i < SAMPLES; i++) {
        // Spread over the store; a pause lets the previous run's writes and events settle.
        latencies.push(
          await sample(
            snapshotsDir,
            path.join(project, 'src/generated/prompts.ts'),
            (i * 37) % PROMPTS,
            `bench-edit-${label}-${i}-${Date.now()}`,
          ),
        );
        await sleep(150);
      }
      await watcher.stop();
      log(`watch latency, ${label} (ms): ${latencies.map((l) => Math.round(l)).join(' ')}`);
      return latencies;
    };
    const cli = await measure([BIN, 'watch', '--interval', '3600'], 'CLI');
    const p50 = percentile(cli, 50);
    const p95 = percentile(cli, 95);
    const gen = median(generateMs);
    const scenario = `watch latency (${thousands(PROMPTS)} prompts, snapshot edit → module rewritten)`;
    const note = `${SAMPLES} samples, p95 ${Math.round(p95)} ms; of which ${DEBOUNCE_MS} ms is the watcher's debounce and ~${Math.round(gen)} ms a generate() after a one-file edit (median in process)`;
    return [
      {
        scenario,
        figure: 'p50',
        value: p50,
        unit: 'ms',
        baseline: gen,
        baselineLabel: 'generate() alone, in process',
        ratio: p50 / gen,
        ratioLabel: '× generate',
        goal: `≤ ${GOAL_MS} ms`,
        met: p50 <= GOAL_MS,
        note,
      },
    ];
  } finally {
    await watcher?.stop();
    await service.close();
    rmSync(work, { recursive: true, force: true });
  }
}
