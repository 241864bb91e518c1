/**
 * Scenario 1, cold sync: 2,000 prompts, 20 ms added to every response, concurrency 64, into an
 * empty project. promptlock (in process, process start excluded) against the overlapped bound
 * B = L·max(1 + N/C, P + 1) and against a sequential client. The sequential client would need over 40 s per
 * run, so it gets a subset and is scaled linearly: all list pages + SUBSET gets, gets × N/SUBSET.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runSync } from '../lib/run-sync.mjs';
import { getSequentially, listSequentially } from '../lib/sequential-client.mjs';
import { nameOf, writeProject, writeServedFolder } from '../lib/served-folder.mjs';
import { startService } from '../lib/service.mjs';
import { median, thousands } from '../lib/stats.mjs';

const PROMPTS = 2_000;
const LATENCY_MS = 20;
const CONCURRENCY = 64;
const PAGE_SIZE = 100;
const SUBSET = 200;

export async function run({ runs = 3, log = () => {} } = {}) {
  const work = mkdtempSync(path.join(tmpdir(), 'promptlock-bench-cold-'));
  // Limits far above the scenario's needs: this one measures latency hiding, scenario 2 the limits.
  const service = await startService({
    dir: writeServedFolder(path.join(work, 'served'), PROMPTS),
    latencyMs: LATENCY_MS,
    rateLimits: { authenticated: { perMinute: 1_000_000, perHour: 10_000_000 } },
  });
  try {
    // Warm-up, not counted: loads the sync's lazily imported modules (part of starting, which
    // this figure excludes) and lets the JIT see the hot paths once.
    const warmUp = writeProject(path.join(work, 'warm-up'), {
      baseUrl: service.url,
      concurrency: CONCURRENCY,
      prompts: Array.from({ length: 100 }, (_, i) => nameOf(i)),
    });
    await runSync(warmUp);
    rmSync(warmUp, { recursive: true, force: true });

    const samples = [];
    for (let i = 0; i < runs; i++) {
      const project = writeProject(path.join(work, `project-${i}`), { baseUrl: service.url, concurrency: CONCURRENCY });
      await service.resetStats();
      const { ms, result, phases, marks } = await runSync(project);
      const stats = await service.stats();
      if (result.prompts !== PROMPTS || stats.byRoute.get !== PROMPTS) {
        throw new Error(`cold sync run ${i + 1}: expected ${PROMPTS} prompts and gets, got ${result.prompts} and ${stats.byRoute.get}`);
      }
      samples.push({ ms, phases, marks, requests: stats.requests });
      log(
        `cold sync run ${i + 1}: ${Math.round(ms)} ms (first prompt at ${Math.round(marks.firstPrompt ?? 0)}, last list page at ${Math.round(marks.lastPage ?? 0)}; list ${Math.round(phases.list ?? 0)}, fetch after it ${Math.round(phases.fetch ?? 0)}, write ${Math.round(phases.write ?? 0)})`,
      );
      rmSync(project, { recursive: true, force: true });
    }

    const sequential = [];
    for (let i = 0; i < runs; i++) {
      const list = await listSequentially(service.url);
      const subset = list.names.slice(0, SUBSET);
      const gets = await getSequentially(service.url, subset);
      const scaled = list.ms + (gets.ms * list.names.length) / subset.length;
      sequential.push(scaled);
      log(
        `sequential run ${i + 1}: list ${Math.round(list.ms)} ms + ${SUBSET} gets ${Math.round(gets.ms)} ms → scaled ${Math.round(scaled)} ms`,
      );
    }

    const pages = Math.ceil(PROMPTS / PAGE_SIZE);
    // The overlapped bound (issue 12): gets start with the first list page, so the run takes the
    // longer of the list (P pages, then one get) and the fetch (one page, then N/C rounds of gets).
    const bound = LATENCY_MS * Math.max(1 + PROMPTS / CONCURRENCY, pages + 1);
    const promptlock = median(samples.map((s) => s.ms));
    const seq = median(sequential);
    const phase = (key) => Math.round(median(samples.map((s) => s.phases[key] ?? 0)));
    const mark = (key) => Math.round(median(samples.map((s) => s.marks[key] ?? 0)));
    // The bound covers the requests only; this is the part of the sync it describes.
    const network = median(samples.map((s) => (s.phases.list ?? 0) + (s.phases.fetch ?? 0)));
    const scenario = `1 cold sync (${thousands(PROMPTS)} prompts, ${LATENCY_MS} ms latency, C=${CONCURRENCY})`;
    return [
      {
        scenario,
        figure: 'promptlock sync, in process',
        value: promptlock,
        unit: 'ms',
        baseline: bound,
        baselineLabel: `bound B = ${LATENCY_MS} ms·max(1 + ${PROMPTS}/${CONCURRENCY}, ${pages} pages + 1)`,
        ratio: promptlock / bound,
        ratioLabel: '× bound',
        goal: '≤ 1.25× B',
        met: promptlock / bound <= 1.25,
        note: `median of ${runs} after a 100-prompt warm-up; process start excluded (timed around sync() in process); first prompt at ${mark('firstPrompt')} ms, last list page at ${mark('lastPage')} ms (gets overlap the list); phases list ${phase('list')} ms, fetch after the list ${phase('fetch')} ms, write ${phase('write')} ms`,
      },
      {
        scenario,
        figure: 'of which list + fetch phases',
        value: network,
        unit: 'ms',
        baseline: bound,
        baselineLabel: 'the same bound',
        ratio: network / bound,
        ratioLabel: '× bound',
        goal: '',
        met: undefined,
        note: `median of ${runs}; from the start to the last get (the list's pages and the gets overlap); the rest of the sync is the write phase (snapshots, lockfile, module, committed together)`,
      },
      {
        scenario,
        figure: 'sequential client (SDK-like)',
        value: seq,
        unit: 'ms',
        baseline: promptlock,
        baselineLabel: 'promptlock sync',
        ratio: seq / promptlock,
        ratioLabel: '× slower than promptlock',
        goal: '≥ 30× (promptlock faster)',
        met: seq / promptlock >= 30,
        note: `median of ${runs}; ${pages} list pages + ${SUBSET} gets measured, gets scaled linearly to ${thousands(PROMPTS)}`,
      },
    ];
  } finally {
    await service.close();
    rmSync(work, { recursive: true, force: true });
  }
}
