/**
 * Runs promptlock's sync in this process through the library API (which loads the config and
 * opens the client the way the CLI does), and times it from the call to the result: process start
 * and module loading are excluded, loading the JSON config is included. Phase events give where
 * the time went. The list streams into the gets (docs/performance.md), so `list` runs from the
 * start of the listing to its last page, with gets already under way, and `fetch` is what is left
 * of the gets after it; `marks` says when the first prompt was resolved and when the last page came.
 */
import { LOCAL_TEST_KEY, sync } from '../../dist/index.js';

/** `apiKey` defaults to the local service's test key; a key of its own gives a run fresh rate windows. */
export async function runSync(projectDir, { apiKey = LOCAL_TEST_KEY } = {}) {
  const phases = {};
  const marks = {};
  let phaseStart = performance.now();
  let phase;
  const start = performance.now();
  const result = await sync({
    cwd: projectDir,
    env: { PROMPTLOCK_API_KEY: apiKey },
    onEvent: (event) => {
      const now = performance.now();
      if (event.type === 'prompt') {
        marks.firstPrompt ??= now - start;
        return;
      }
      // With a list, the fetch phase starts when its last page has come.
      if (event.phase === 'fetch' && phase === 'list') marks.lastPage = now - start;
      if (event.phase === phase) return;
      if (phase) phases[phase] = (phases[phase] ?? 0) + now - phaseStart;
      phase = event.phase;
      phaseStart = now;
    },
  });
  const end = performance.now();
  if (phase) phases[phase] = (phases[phase] ?? 0) + end - phaseStart;
  return { ms: end - start, result, phases, marks };
}
