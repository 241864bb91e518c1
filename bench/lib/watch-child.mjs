/**
 * The watcher of `promptlock watch` through the library, with the debounce as an argument
 * (`node watch-child.mjs <debounceMs>`, in the project folder): the CLI has no flag for it, and
 * the watch-latency scenario uses this to show what the debounce costs. Prints the CLI's ready
 * line; SIGINT or SIGTERM closes the watcher.
 */
import { createClient, loadConfig, startWatch } from '../../dist/index.js';

const debounceMs = Number(process.argv[2]);
const handle = await startWatch({
  loadConfig: () => loadConfig({ cwd: process.cwd() }),
  connect: async (config) =>
    createClient({ baseUrl: config.baseUrl, apiKey: config.apiKey, concurrency: config.concurrency, timeoutMs: config.timeout }),
  log: { info() {}, success() {}, warn: (message) => console.error(message) },
  intervalSeconds: 3600,
  debounceMs,
});
await handle.ready;
console.log('Watching for changes (library)');
const stop = async () => {
  await handle.close();
  process.exit(0);
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
