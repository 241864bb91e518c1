/**
 * The plugin's log lines are cleaned as the CLI's are (src/terminal-text.ts): text from the service
 * reaching a warning while polling (here a version the service answers with, quoted in the error)
 * carries no escape sequences, control characters, bidi controls or workflow commands into the
 * bundler's log.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { build, createServer, type Logger } from 'vite';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { loadConfig } from '../../src/config/index.js';
import promptlock from '../../src/plugin/vite.js';
import { sync } from '../../src/sync/sync.js';
import { disposables } from '../helpers/disposables.js';
import { ACME_NAME, acmePrompt, hostileService, json, TERMINAL_CONTROLS } from '../helpers/hostile-network.js';
import { removeDir } from '../helpers/project.js';
import { waitUntil } from '../helpers/wait-until.js';
import { MODULE, makeApp } from './app.js';

const use = disposables();
afterEach(() => {
  vi.unstubAllEnvs();
});

const BIDI = /[\u202a-\u202e\u2066-\u2069]/;
let hostile = false;
const service = hostileService((_req, res) =>
  json(res, 200, acmePrompt(hostile ? { version: 'v2\u202e\u2066live\x1b[2J\x9b0m##[add-mask]x', packageName: `${ACME_NAME}:v2` } : {})),
);

function capture(lines: string[]): Logger {
  const keep = (message: string) => void lines.push(message);
  return {
    info: keep,
    warn: keep,
    warnOnce: keep,
    error: keep,
    clearScreen: () => {},
    hasErrorLogged: () => false,
    hasWarned: false,
  };
}

describe('promptlock/vite log lines', () => {
  it('carry no bidi or control characters from the service while polling', async () => {
    const { url } = await service();
    const dir = await makeApp(`import { prompts } from './generated/prompts';\nexport const names = Object.keys(prompts);\n`);
    use.defer(() => removeDir(dir));
    await rm(path.join(dir, 'prompts'), { recursive: true });
    await rm(path.join(dir, 'prompts.lock.json'));
    await writeFile(path.join(dir, 'prompts.config.json'), JSON.stringify({ baseUrl: url, prompts: [ACME_NAME], output: MODULE }));
    vi.stubEnv('PROMPTLOCK_API_KEY', 'sk_test_plugin_log_lines_0000');
    const config = await loadConfig({ cwd: dir });
    await sync({ config, connect: async () => createClient({ baseUrl: config.baseUrl, apiKey: config.apiKey }) });
    hostile = true;
    const lines: string[] = [];
    const server = await createServer({
      root: dir,
      configFile: false,
      customLogger: capture(lines),
      plugins: [promptlock({ poll: true, interval: 0.1, rateLimit: 6000 })],
      server: { port: 0, host: '127.0.0.1' },
    });
    use.defer(() => server.close());
    await server.listen();
    const warning = await waitUntil('a warning about the answer', () =>
      lines.find((line) => line.includes('[promptlock]') && line.includes('v2')),
    );
    expect(warning).toContain('v2live');
    for (const line of lines) {
      expect(line).not.toMatch(BIDI);
      expect(line).not.toMatch(TERMINAL_CONTROLS);
      // Issue 30, item 5: no workflow command (`##[` anywhere) in a line of the bundler's log.
      expect(line).not.toContain('##[');
    }
  });

  it('and the error of a failed build carries none from a damaged snapshot', async () => {
    const dir = await makeApp(`import { acmeWelcome } from './generated/prompts';\nconsole.log(acmeWelcome().content);\n`);
    use.defer(() => removeDir(dir));
    const file = path.join(dir, 'prompts/acme/welcome.json');
    const snapshot = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
    await writeFile(file, JSON.stringify({ ...snapshot, version: 'v1\u202e\u2066evil\x1b]0;t\x07' }));
    const failure = await build({
      root: dir,
      configFile: false,
      logLevel: 'silent',
      plugins: [promptlock()],
      build: { write: false },
    }).then(
      () => undefined,
      (error: Error) => error,
    );
    expect(failure?.message).toContain('[promptlock]');
    // What promptlock said, without the bundler's own wrapper (coloured when CI is set).
    const ours = failure!.message.slice(failure!.message.indexOf('[promptlock]')).replace(/(?:\x1b\[[0-9;]*m)+\s*$/, '');
    expect(ours).toContain('v1evil');
    expect(ours).not.toMatch(BIDI);
    expect(ours).not.toMatch(TERMINAL_CONTROLS);
  });
});
