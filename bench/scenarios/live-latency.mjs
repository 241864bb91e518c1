/**
 * Live call latency: `promptlock/live` answering from its cache (the version fetched from the
 * service, fresh within its ttl) against the committed module's direct call, for 100 prompts of 20
 * lines with 3 variables. The service (a child process on 127.0.0.1) holds the same version the
 * module was generated from, locked at `latest`, so the live wrapper follows it; every prompt is
 * fetched once before measuring, then no call touches the network. Per-call wall time, p50 and p99
 * over alternating batches of both; the outputs are checked equal.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LOCAL_TEST_KEY } from '../../dist/index.js';
import { createLivePrompts } from '../../dist/live.js';
import { generatedModule, importModule, SHAPES } from '../lib/generated-module.mjs';
import { writeServedFolder } from '../lib/served-folder.mjs';
import { startService } from '../lib/service.mjs';
import { percentile } from '../lib/stats.mjs';

const PROMPTS = 100;
const BATCH = 2_000;
const WARM_UP_BATCHES = 5;
const MEASURED_BATCHES = 10;

export async function run({ log = () => {} } = {}) {
  const work = mkdtempSync(path.join(tmpdir(), 'promptlock-bench-live-'));
  const service = await startService({ dir: writeServedFolder(path.join(work, 'served'), PROMPTS, 1) });
  const saved = { key: process.env.PROMPTLOCK_API_KEY, url: process.env.PROMPTLOCK_BASE_URL };
  let live;
  try {
    const { outputPath } = await generatedModule(path.join(work, 'app'), PROMPTS, 'long');
    const lockfilePath = path.join(work, 'app', 'prompts.lock.json');
    // The store is written pinned at v1; lock it at `latest` so the live wrapper follows it.
    const lockfile = JSON.parse(readFileSync(lockfilePath, 'utf8'));
    for (const entry of Object.values(lockfile.prompts)) entry.selector = 'latest';
    writeFileSync(lockfilePath, JSON.stringify(lockfile));
    const module = await importModule(outputPath);
    const names = Object.keys(module.prompts);
    const variables = SHAPES.long.variables;

    process.env.PROMPTLOCK_API_KEY = LOCAL_TEST_KEY;
    delete process.env.PROMPTLOCK_BASE_URL;
    live = createLivePrompts(module.prompts, { baseUrl: service.url, lockfile: lockfilePath, ttl: 3600, timeoutMs: 10_000 });
    for (const name of names) {
      const answer = await live[name](variables);
      const direct = module.prompts[name](variables);
      if (answer.content !== direct.content || answer.systemPrompt !== direct.systemPrompt)
        throw new Error(`live and direct renders of ${name} differ`);
    }
    const notLive = live.status().filter((s) => s.source !== 'live');
    if (notLive.length > 0) throw new Error(`not served live: ${notLive[0].name}: ${notLive[0].reason}`);
    const gets = (await service.stats()).byRoute.get;

    const liveTimes = [];
    const directTimes = [];
    let sink = 0;
    for (let batch = 0; batch < WARM_UP_BATCHES + MEASURED_BATCHES; batch++) {
      const keep = batch >= WARM_UP_BATCHES;
      for (let i = 0; i < BATCH; i++) {
        const name = names[i % PROMPTS];
        const start = performance.now();
        const answer = await live[name](variables);
        const took = performance.now() - start;
        sink += answer.content.length;
        if (keep) liveTimes.push(took * 1000);
      }
      for (let i = 0; i < BATCH; i++) {
        const fn = module.prompts[names[i % PROMPTS]];
        const start = performance.now();
        const answer = fn(variables);
        const took = performance.now() - start;
        sink += answer.content.length;
        if (keep) directTimes.push(took * 1000);
      }
    }
    if (sink === 0) throw new Error('nothing rendered');
    const after = (await service.stats()).byRoute.get;
    if (after !== gets) throw new Error(`${after - gets} requests reached the service while measuring`);
    const figures = {
      liveP50: percentile(liveTimes, 50),
      liveP99: percentile(liveTimes, 99),
      directP50: percentile(directTimes, 50),
      directP99: percentile(directTimes, 99),
    };
    log(
      `live from cache p50 ${figures.liveP50.toFixed(2)} µs, p99 ${figures.liveP99.toFixed(2)} µs; direct p50 ${figures.directP50.toFixed(2)} µs, p99 ${figures.directP99.toFixed(2)} µs; ${gets} gets before, none while measuring`,
    );
    const scenario = `live call latency (${PROMPTS} prompts of 20 lines, 3 variables, from cache)`;
    const note = `${MEASURED_BATCHES * BATCH} calls each after ${WARM_UP_BATCHES * BATCH} warm-up, alternating batches; wall time per call (await included); outputs checked equal; no request during the measurement`;
    return [
      {
        scenario,
        figure: 'live call p50',
        value: figures.liveP50,
        unit: 'µs',
        baseline: figures.directP50,
        baselineLabel: 'committed module, direct call',
        ratio: figures.liveP50 / figures.directP50,
        ratioLabel: '× the direct call',
        goal: '< 1 ms (no network on the call path)',
        met: figures.liveP50 < 1000,
        note,
      },
      {
        scenario,
        figure: 'live call p99',
        value: figures.liveP99,
        unit: 'µs',
        baseline: figures.directP99,
        baselineLabel: 'committed module, direct call',
        ratio: figures.liveP99 / figures.directP99,
        ratioLabel: '× the direct call',
        goal: '< 1 ms (no network on the call path)',
        met: figures.liveP99 < 1000,
        note: '',
      },
    ];
  } finally {
    await live?.close();
    await service.close();
    if (saved.key === undefined) delete process.env.PROMPTLOCK_API_KEY;
    else process.env.PROMPTLOCK_API_KEY = saved.key;
    if (saved.url !== undefined) process.env.PROMPTLOCK_BASE_URL = saved.url;
    rmSync(work, { recursive: true, force: true });
  }
}
