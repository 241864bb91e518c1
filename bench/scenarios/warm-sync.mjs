/**
 * Scenario 3, warm sync: a second sync when nothing changed. Pinned (`:v1`) prompts that are
 * locked and on disk must not be fetched at all; floating ones (the default, `latest`) are fetched
 * exactly once each to learn whether they changed, unless the list names each prompt with its
 * version (`serve --list-names versioned`, a form the hosted service answers): then the list pages
 * are the only requests.
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
/** Pages of 100, the client's page size. */
const PAGES = Math.ceil(PROMPTS / 100);

async function warmRuns(service, project, runs, label, log) {
  await runSync(project); // the cold sync that locks everything
  const samples = [];
  for (let i = 0; i < runs; i++) {
    await service.resetStats();
    const { ms, result } = await runSync(project);
    const stats = await service.stats();
    samples.push({
      ms,
      gets: stats.byRoute.get ?? 0,
      lists: stats.byRoute.list ?? 0,
      requests: stats.requests,
      saved: result.savedByList,
      written: result.written.length,
    });
    log(
      `warm ${label} run ${i + 1}: ${Math.round(ms)} ms, ${stats.byRoute.get ?? 0} gets, ${stats.byRoute.list ?? 0} lists, ${result.written.length} files written`,
    );
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
  const versionedService = await startService({
    dir: path.join(work, 'served'),
    latencyMs: LATENCY_MS,
    rateLimits: { authenticated: { perMinute: 1_000_000, perHour: 10_000_000 } },
    listNames: 'versioned',
  });
  try {
    const names = Array.from({ length: PROMPTS }, (_, i) => nameOf(i));
    const pinnedProject = writeProject(path.join(work, 'pinned'), {
      baseUrl: service.url,
      concurrency: 64,
      prompts: names.map((n) => `${n}:v1`),
    });
    const floatingProject = writeProject(path.join(work, 'floating'), { baseUrl: service.url, concurrency: 64 });
    const pinned = await warmRuns(service, pinnedProject, runs, 'pinned', log);
    const floating = await warmRuns(service, floatingProject, runs, 'floating', log);
    const versionedProject = writeProject(path.join(work, 'versioned'), { baseUrl: versionedService.url, concurrency: 64 });
    const versioned = await warmRuns(versionedService, versionedProject, runs, 'floating, versioned list names', log);
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
        figure: 'floating (latest), list names without versions: get requests',
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
      {
        scenario,
        figure: 'floating (latest), list names with versions: requests',
        value: median(versioned.map((s) => s.requests)),
        unit: '',
        baseline: PAGES,
        baselineLabel: 'list pages',
        ratio: median(versioned.map((s) => s.requests)) / PAGES,
        ratioLabel: '× list pages',
        goal: 'requests = list pages',
        met: versioned.every((s) => s.gets === 0 && s.requests === s.lists && s.lists === PAGES),
        note: `every run: ${versioned.map((s) => `${s.requests} requests (${s.gets} gets)`).join(', ')}; the list saved ${versioned.map((s) => s.saved).join(', ')} gets; median ${Math.round(median(versioned.map((s) => s.ms)))} ms per warm run (${Math.round(median(floating.map((s) => s.ms)))} ms with one get per prompt)`,
      },
    ];
  } finally {
    await service.close();
    await versionedService.close();
    rmSync(work, { recursive: true, force: true });
  }
}
