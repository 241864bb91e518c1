/**
 * Warm sync of list-proved prompts: a second sync of 1,000 floating prompts when nothing changed,
 * against a service whose list names each prompt with its version (`serve --list-names
 * versioned`, a form the hosted service answers). Each prompt is locked at the version the list
 * names and its snapshot is intact, so the list proves it unchanged: guard, 0 gets. Baseline: the
 * gets of the cold sync that locked them, in the same run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runSync } from '../lib/run-sync.mjs';
import { writeProject, writeServedFolder } from '../lib/served-folder.mjs';
import { startService } from '../lib/service.mjs';
import { median, thousands } from '../lib/stats.mjs';

const PROMPTS = 1_000;
const LATENCY_MS = 20;

export async function run({ runs = 3, log = () => {} } = {}) {
  const work = mkdtempSync(path.join(tmpdir(), 'promptlock-bench-warm-'));
  const service = await startService({
    dir: writeServedFolder(path.join(work, 'served'), PROMPTS),
    latencyMs: LATENCY_MS,
    rateLimits: { authenticated: { perMinute: 1_000_000, perHour: 10_000_000 } },
    listNames: 'versioned',
  });
  try {
    const project = writeProject(path.join(work, 'project'), { baseUrl: service.url, concurrency: 64 });
    await runSync(project); // the cold sync that locks everything
    const coldGets = (await service.stats()).byRoute.get ?? 0;
    const samples = [];
    for (let i = 0; i < runs; i++) {
      await service.resetStats();
      const { ms, result } = await runSync(project);
      const stats = await service.stats();
      samples.push({ ms, gets: stats.byRoute.get ?? 0, lists: stats.byRoute.list ?? 0, written: result.written.length });
      log(
        `warm run ${i + 1}: ${Math.round(ms)} ms, ${stats.byRoute.get ?? 0} gets, ${stats.byRoute.list ?? 0} list pages, ${result.written.length} files written`,
      );
    }
    const gets = Math.max(...samples.map((s) => s.gets));
    return [
      {
        scenario: `warm sync (${thousands(PROMPTS)} floating prompts, versioned list names, nothing changed)`,
        figure: 'get requests (worst run)',
        value: gets,
        unit: '',
        baseline: coldGets,
        baselineLabel: 'gets of the cold sync',
        ratio: coldGets === 0 ? Number.NaN : gets / coldGets,
        ratioLabel: '× cold',
        goal: '0 gets',
        met: gets === 0,
        note: `every run: ${samples.map((s) => `${s.gets} gets + ${s.lists} list pages`).join(', ')}; median ${Math.round(median(samples.map((s) => s.ms)))} ms per warm run; ${Math.max(...samples.map((s) => s.written))} files written`,
      },
    ];
  } finally {
    await service.close();
    rmSync(work, { recursive: true, force: true });
  }
}
