/**
 * Cold sync: 1,000 prompts, 20 ms added to every response, no rate limit, into an empty project,
 * 64 requests in flight. promptlock's sync (in process, process start excluded) against two
 * baselines of the same run: the bare I/O it must do (lib/bare-io.mjs) at the same concurrency, the
 * two alternating run by run so a busy moment of the shared box hits both, guard ≤ 2×; and the
 * same bare I/O one request at a time (a sequential client, run once), guard: the sync at least
 * 10× faster. Phase events say where the sync's time went.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { bareIo } from '../lib/bare-io.mjs';
import { runSync } from '../lib/run-sync.mjs';
import { nameOf, writeProject, writeServedFolder } from '../lib/served-folder.mjs';
import { startService } from '../lib/service.mjs';
import { median, thousands } from '../lib/stats.mjs';

const PROMPTS = 1_000;
const LATENCY_MS = 20;
const CONCURRENCY = 64;
const GOALS = { overBare: 2, overSequential: 10 };

export async function run({ runs = 3, log = () => {} } = {}) {
  const work = mkdtempSync(path.join(tmpdir(), 'promptlock-bench-cold-'));
  // Limits far above the scenario's needs: this measures latency hiding and the commit.
  const service = await startService({
    dir: writeServedFolder(path.join(work, 'served'), PROMPTS),
    latencyMs: LATENCY_MS,
    rateLimits: { authenticated: { perMinute: 1_000_000, perHour: 10_000_000 } },
  });
  try {
    // Warm-up, not counted: loads the sync's lazily imported modules (part of starting, which
    // this figure excludes) and lets the JIT see the hot paths of both once.
    const warmUp = writeProject(path.join(work, 'warm-up'), {
      baseUrl: service.url,
      concurrency: CONCURRENCY,
      prompts: Array.from({ length: 100 }, (_, i) => nameOf(i)),
    });
    await runSync(warmUp);
    await bareIo(service.url, path.join(work, 'bare-warm-up'), CONCURRENCY);

    const samples = [];
    const bare = [];
    for (let i = 0; i < runs; i++) {
      const project = writeProject(path.join(work, `project-${i}`), { baseUrl: service.url, concurrency: CONCURRENCY });
      await service.resetStats();
      const { ms, result, phases, marks } = await runSync(project);
      const stats = await service.stats();
      if (result.prompts !== PROMPTS || stats.byRoute.get !== PROMPTS) {
        throw new Error(`cold sync run ${i + 1}: expected ${PROMPTS} prompts and gets, got ${result.prompts} and ${stats.byRoute.get}`);
      }
      samples.push({ ms, phases, marks });
      const io = await bareIo(service.url, path.join(work, `bare-${i}`), CONCURRENCY);
      if (io.gets !== PROMPTS) throw new Error(`bare I/O run ${i + 1}: expected ${PROMPTS} gets, got ${io.gets}`);
      bare.push(io.ms);
      log(
        `run ${i + 1}: sync ${Math.round(ms)} ms (last list page at ${Math.round(marks.lastPage ?? 0)}; list ${Math.round(phases.list ?? 0)}, fetch after it ${Math.round(phases.fetch ?? 0)}, write ${Math.round(phases.write ?? 0)}); bare I/O ${Math.round(io.ms)} ms`,
      );
      rmSync(project, { recursive: true, force: true });
      rmSync(path.join(work, `bare-${i}`), { recursive: true, force: true });
    }

    const sequential = await bareIo(service.url, path.join(work, 'sequential'), 1);
    if (sequential.gets !== PROMPTS) throw new Error(`sequential client: expected ${PROMPTS} gets, got ${sequential.gets}`);
    log(`sequential client (one request at a time): ${Math.round(sequential.ms)} ms`);

    const promptlock = median(samples.map((s) => s.ms));
    const baseline = median(bare);
    const phase = (key) => Math.round(median(samples.map((s) => s.phases[key] ?? 0)));
    const scenario = `cold sync (${thousands(PROMPTS)} prompts, ${LATENCY_MS} ms latency, unthrottled, C=${CONCURRENCY})`;
    return [
      {
        scenario,
        figure: 'promptlock sync, in process',
        value: promptlock,
        unit: 'ms',
        baseline,
        baselineLabel: 'bare I/O: list, gets, temp file + rename each, one fsync',
        ratio: promptlock / baseline,
        ratioLabel: '× bare I/O',
        goal: `≤ ${GOALS.overBare}× bare I/O`,
        met: promptlock / baseline <= GOALS.overBare,
        note: `medians of ${runs} alternating runs after a warm-up of each; sync phases: list ${phase('list')} ms, fetch after the list ${phase('fetch')} ms, write ${phase('write')} ms`,
      },
      {
        scenario,
        figure: 'against a sequential client',
        value: promptlock,
        unit: 'ms',
        baseline: sequential.ms,
        baselineLabel: 'the same bare I/O, one request at a time',
        ratio: sequential.ms / promptlock,
        ratioLabel: '× faster',
        goal: `≥ ${GOALS.overSequential}× faster`,
        met: sequential.ms / promptlock >= GOALS.overSequential,
        note: 'the sequential client runs once (its time is its 1,010 round trips)',
      },
    ];
  } finally {
    await service.close();
    rmSync(work, { recursive: true, force: true });
  }
}
