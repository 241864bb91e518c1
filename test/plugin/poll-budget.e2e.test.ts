/**
 * The plugin's `poll` says once, in the bundler's log, when its `interval` cannot be met within the
 * request budget, naming the plugin's options (not the CLI's flags). Vite's dev server against the
 * real local service.
 */
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createServer, type Logger } from 'vite';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { loadConfig } from '../../src/config/index.js';
import promptlock from '../../src/plugin/vite.js';
import { LOCAL_TEST_KEY } from '../../src/server/index.js';
import { sync } from '../../src/sync/sync.js';
import { disposables } from '../helpers/disposables.js';
import { removeDir } from '../helpers/project.js';
import { writeServedFolder } from '../helpers/served-folder.js';
import { waitUntil } from '../helpers/wait-until.js';
import { MODULE, makeApp } from './app.js';

const use = disposables();
afterEach(() => {
  vi.unstubAllEnvs();
});

function capture(lines: string[]): Logger {
  const keep = (message: string) => void lines.push(message);
  return { info: keep, warn: keep, warnOnce: keep, error: keep, clearScreen: () => {}, hasErrorLogged: () => false, hasWarned: false };
}

describe('promptlock/vite with poll', () => {
  it('says once that 60 floating prompts every 1 s are each checked about every 20 s, and which options change it', async () => {
    const served = await writeServedFolder(undefined, 60, 1);
    use.defer(() => removeDir(served));
    const service = await use.serve({ dir: served });
    const dir = await makeApp(`import { prompts } from './generated/prompts';\nexport const names = Object.keys(prompts);\n`);
    use.defer(() => removeDir(dir));
    await rm(path.join(dir, 'prompts'), { recursive: true });
    await rm(path.join(dir, 'prompts.lock.json'));
    await writeFile(path.join(dir, 'prompts.config.json'), JSON.stringify({ baseUrl: service.url, prompts: ['@bulk/*'], output: MODULE }));
    vi.stubEnv('PROMPTLOCK_API_KEY', LOCAL_TEST_KEY);
    const config = await loadConfig({ cwd: dir });
    await sync({ config, connect: async () => createClient({ baseUrl: config.baseUrl, apiKey: config.apiKey }) });
    const lines: string[] = [];
    const server = await createServer({
      root: dir,
      configFile: false,
      customLogger: capture(lines),
      plugins: [promptlock({ poll: true, interval: 1 })],
      server: { port: 0, host: '127.0.0.1' },
    });
    use.defer(() => server.close());
    await server.listen();
    await waitUntil('the budget notice', () => lines.some((line) => line.includes('floating prompts is checked')));
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const notices = lines.filter((line) => line.includes('floating prompts is checked'));
    expect(notices).toHaveLength(1);
    expect(notices[0]).toContain('[promptlock] Each of the 60 floating prompts is checked about every 20 s, not every 1 s');
    expect(notices[0]).toContain(
      'raise `rateLimit` if the service allows more than 1000 a minute; `interval: 20` polls at the pace that is met.',
    );
  });
});
