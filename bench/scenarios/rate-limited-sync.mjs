/**
 * Rate-limited sync: a cold sync of 1,500 prompts against the local service limited as the hosted
 * one is (1,000 requests a minute, 10,000 an hour: docs/service-interface.md, "Rate limits"), 20 ms latency, the
 * config's default concurrency. Its 1,515 requests (15 list pages, 1,500 gets) need two windows,
 * so the least time the limit allows is the window bound, one minute: the second window cannot
 * start sooner. Guards: 0 answers 429, and the sync takes at most 1.1× the window bound. One run
 * (it takes a minute by design).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runSync } from '../lib/run-sync.mjs';
import { writeProject, writeServedFolder } from '../lib/served-folder.mjs';
import { startService } from '../lib/service.mjs';
import { thousands } from '../lib/stats.mjs';

const PROMPTS = 1_500;
const LATENCY_MS = 20;
const PER_MINUTE = 1_000;
const MINUTE_MS = 60_000;
const GOAL = 1.1;

export async function run({ log = () => {} } = {}) {
  const work = mkdtempSync(path.join(tmpdir(), 'promptlock-bench-rate-'));
  const service = await startService({
    dir: writeServedFolder(path.join(work, 'served'), PROMPTS),
    latencyMs: LATENCY_MS,
    rateLimits: { authenticated: { perMinute: PER_MINUTE, perHour: 10_000 }, minuteMs: MINUTE_MS },
  });
  try {
    const project = writeProject(path.join(work, 'project'), { baseUrl: service.url });
    const { ms, result } = await runSync(project);
    const stats = await service.stats();
    if (result.prompts !== PROMPTS) throw new Error(`rate-limited sync: expected ${PROMPTS} prompts, got ${result.prompts}`);
    const refused = stats.byStatus['429'] ?? 0;
    // The windows its requests need; the last one opens (windows - 1) minutes after the first request.
    const windows = Math.ceil(stats.requests / PER_MINUTE);
    const bound = (windows - 1) * MINUTE_MS;
    log(`${thousands(stats.requests)} requests in ${windows} windows: ${Math.round(ms)} ms (bound ${bound} ms), ${refused} answered 429`);
    const scenario = `rate-limited sync (${thousands(PROMPTS)} prompts, ${thousands(PER_MINUTE)} requests a minute, ${LATENCY_MS} ms latency)`;
    return [
      {
        scenario,
        figure: 'answers 429',
        value: refused,
        unit: '',
        baseline: stats.requests,
        baselineLabel: 'requests sent',
        goal: '0 × 429',
        met: refused === 0,
      },
      {
        scenario,
        figure: 'promptlock sync, in process',
        value: ms,
        unit: 'ms',
        baseline: bound,
        baselineLabel: `window bound: ${windows - 1} full window(s) before the last opens`,
        ratio: ms / bound,
        ratioLabel: '× window bound',
        goal: `≤ ${GOAL}× window bound`,
        met: ms / bound <= GOAL,
        note: "one run; the time past the bound is the last window's requests and the wait for a reset the service announces in whole seconds",
      },
    ];
  } finally {
    await service.close();
    rmSync(work, { recursive: true, force: true });
  }
}
