/**
 * The local Prompt Service in a process of its own, so the service's work does not share the event
 * loop of the client being measured (as with a real remote service). Driven over IPC by service.mjs:
 * it receives the `startServer` options, answers `{ url }`, then `stats` / `reset` requests.
 */
import { startServer } from '../../dist/index.js';

let server;

process.on('message', async (message) => {
  try {
    if (message.type === 'start') {
      server = await startServer({ ...message.options, port: 0, host: '127.0.0.1' });
      process.send({ type: 'started', url: server.url });
    } else if (message.type === 'stats') {
      process.send({ type: 'stats', stats: JSON.parse(JSON.stringify(server.stats)) });
    } else if (message.type === 'reset') {
      server.resetStats();
      process.send({ type: 'reset' });
    }
  } catch (error) {
    process.send({ type: 'error', message: String(error?.stack ?? error) });
  }
});

const stop = async () => {
  await server?.close();
  process.exit(0);
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
// The parent went away without stopping us: do not linger.
process.once('disconnect', stop);
