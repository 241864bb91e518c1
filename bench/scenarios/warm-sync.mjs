/**
 * Scenario 3, warm sync: a second sync when nothing changed. Pinned (`:v1`) prompts that are
 * locked and on disk must not be fetched at all; floating ones (the default, `latest`) are fetched
 * exactly once each to learn whether they changed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runSync } from '../lib/run-sync.mjs';
import { nameOf, writeProject, writeServedFolder } from '../lib/served-folder.mjs';
import { startService } from '../lib/service.mjs';
import { median, thousands } from '../lib/stats.mjs';

const PROMPTS = 1_000;
const LATENCY_MS = 20;

async function warmRuns(service, project, runs, label, log) {
  await runSync(project); // the cold sync that locks everything
  const samples = [];
  for (let i = 0; i < runs; i++) {
    await service.resetStats();
    const { ms, result } = await runSync(project);
    const stats = await service.stats();
    samples.push({ ms, gets: stats.byRoute.get ?? 0, lists: stats.byRoute.list ?? 0, written: result.written.length });
    log(`warm ${label} run ${i + 1}: ${Math.round(ms)} ms, ${stats.byRoute.get ?? 0} gets, ${stats.byRoute.list ?? 0} lists, ${result.written.length} files written`);
  }
  return samples;
}

export async function run({ runs = 3, log = () => {} } = {}) {
  const work = mkdtempSync(path.join(tmpdir(), 'promptlock-bench-warm-'));
  const service = await startService({
    dir: writeServedFolder(path.join(work, 'served'), PROMPTS),
    latencyMs: LATENCY_MS,
    rateLimits: { authenticated: { perMinute: 1_000_000, perHour: 10_000_000 } },
  });
  try {
    const names = Array.from({ length: PROMPTS }, (_, i) => nameOf(i));
    const pinnedProject = writeProject(path.join(work, 'pinned'), { baseUrl: service.url, concurrency: 64, prompts: names.map((n) => `${n}:v1`) });
    const floatingProject = writeProject(path.join(work, 'floating'), { baseUrl: service.url, concurrency: 64 });
    const pinned = await warmRuns(service, pinnedProject, runs, 'pinned', log);
    const floating = await warmRuns(service, floatingProject, runs, 'floating', log);
    const scenario = `3 warm sync (${thousands(PROMPTS)} prompts, nothing changed)`;
    const pinnedGets = Math.max(...pinned.map((s) => s.gets));
    const floatingGets = floating.map((s) => s.gets);
    const exact = floatingGets.every((g) => g === PROMPTS);
    return [
      {
        scenario,
        figure: 'pinned + locked: get requests (worst run)',
        value: pinnedGets,
        unit: '',
        baseline: PROMPTS,
        baselineLabel: 'prompts',
        ratio: pinnedGets / PROMPTS,
        ratioLabel: 'gets per prompt',
        goal: '0 gets',
        met: pinnedGets === 0,
        note: `median ${Math.round(median(pinned.map((s) => s.ms)))} ms per warm run; ${Math.max(...pinned.map((s) => s.written))} files written`,
      },
      {
        scenario,
        figure: 'floating (latest): get requests',
        value: median(floatingGets),
        unit: '',
        baseline: PROMPTS,
        baselineLabel: 'prompts',
        ratio: median(floatingGets) / PROMPTS,
        ratioLabel: 'gets per prompt',
        goal: 'exactly 1 get per prompt',
        met: exact,
        note: `every run: ${floatingGets.join(', ')} gets, ${Math.max(...floating.map((s) => s.lists))} list pages; median ${Math.round(median(floating.map((s) => s.ms)))} ms per warm run; ${Math.max(...floating.map((s) => s.written))} files written`,
      },
    ];
  } finally {
    await service.close();
    rmSync(work, { recursive: true, force: true });
  }
}
