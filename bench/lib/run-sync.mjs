/**
 * Runs promptlock's sync in this process, the way the CLI does (loadConfig, then sync with a client
 * from createClient), and times it from the call to the result: process start and module loading
 * are excluded. Phase events give where the time went (list, fetch, write).
 */
import { createClient, LOCAL_TEST_KEY, loadConfig, sync } from '../../dist/index.js';

/** `apiKey` defaults to the local service's test key; a key of its own gives a run fresh rate windows. */
export async function runSync(projectDir, { apiKey = LOCAL_TEST_KEY } = {}) {
  const config = await loadConfig({ cwd: projectDir, env: { PROMPTLOCK_API_KEY: apiKey } });
  const phases = {};
  let phaseStart = performance.now();
  let phase;
  const start = performance.now();
  const result = await sync({
    config,
    connect: async () =>
      createClient({ baseUrl: config.baseUrl, apiKey: config.apiKey, concurrency: config.concurrency, timeoutMs: config.timeout }),
    onEvent: (event) => {
      if (event.type !== 'phase' || event.phase === phase) return;
      const now = performance.now();
      if (phase) phases[phase] = (phases[phase] ?? 0) + now - phaseStart;
      phase = event.phase;
      phaseStart = now;
    },
  });
  const end = performance.now();
  if (phase) phases[phase] = (phases[phase] ?? 0) + end - phaseStart;
  return { ms: end - start, result, phases };
}
