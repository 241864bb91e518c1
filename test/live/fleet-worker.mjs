// One instance of the fleet test (fleet.test.ts): the built promptlock/live over the generated
// module, sharing Redis with the others, calling every prompt until told to stop.
import { parentPort, workerData } from 'node:worker_threads';

const { createLivePrompts, redisStore } = await import(workerData.liveUrl);
const { prompts } = await import(workerData.moduleUrl);
const events = {};
const reasons = {};
const live = createLivePrompts(prompts, {
  baseUrl: workerData.baseUrl,
  ttl: workerData.ttl,
  timeoutMs: 200,
  lockfile: workerData.lockfilePath,
  rateLimit: workerData.rateLimit,
  // Generous timeouts: on a loaded 2-core machine 20 workers starve Redis's replies, and a store
  // failing for a whole ttl rightly sends each instance to the service on its own.
  store: redisStore({ url: workerData.redisUrl, commandTimeoutMs: 1000, connectTimeoutMs: 2000 }),
  onEvent: (event) => {
    events[event.type] = (events[event.type] ?? 0) + 1;
    if (event.type !== 'update') {
      const why = String(event.reason ?? event.message).slice(0, 50);
      reasons[why] = (reasons[why] ?? 0) + 1;
    }
  },
});
const names = Object.keys(prompts);
const variables = { name_0: 'a', name_1: 'b', name_2: 'c' };
let stopped = false;
let calls = 0;
let failures = 0;
let callsAtMark = 0;
let failuresAtMark = 0;
let marked = false;
const errors = [];
parentPort.on('message', (message) => {
  if (message === 'mark') {
    callsAtMark = calls;
    failuresAtMark = failures;
    marked = true;
  }
  if (message === 'stop') stopped = true;
});
parentPort.postMessage({ type: 'ready' });
while (!stopped) {
  for (const name of names) {
    try {
      const rendered = await live[name](variables);
      if (typeof rendered.content !== 'string' || !rendered.content.includes('says')) throw new Error(`bad render of ${name}`);
      calls++;
      // The first call served after the mark (Redis killed): the test waits for one from each instance.
      if (marked && calls === callsAtMark + 1) parentPort.postMessage({ type: 'served-after-mark' });
    } catch (error) {
      failures++;
      if (errors.length < 5) errors.push(String(error?.stack ?? error));
    }
  }
  // A pause between rounds: the instances call often enough to meet every ttl without taking the cores from the other tests.
  await new Promise((resolve) => setTimeout(resolve, 200));
}
const sources = {};
for (const status of live.status()) sources[status.source] = (sources[status.source] ?? 0) + 1;
await live.close();
parentPort.postMessage({ type: 'done', calls, failures, callsAtMark, failuresAtMark, errors, sources, events, reasons });
