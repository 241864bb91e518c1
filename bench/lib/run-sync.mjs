/**
 * Runs promptlock's sync in this process through the library API (which loads the config and
 * opens the client the way the CLI does), and times it from the call to the result: process start
 * and module loading are excluded, loading the JSON config is included. Phase events give where
 * the time went (list, fetch, write).
 */
import { LOCAL_TEST_KEY, sync } from '../../dist/index.js';

/** `apiKey` defaults to the local service's test key; a key of its own gives a run fresh rate windows. */
export async function runSync(projectDir, { apiKey = LOCAL_TEST_KEY } = {}) {
  const phases = {};
  let phaseStart = performance.now();
  let phase;
  const start = performance.now();
  const result = await sync({
    cwd: projectDir,
    env: { PROMPTLOCK_API_KEY: apiKey },
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
