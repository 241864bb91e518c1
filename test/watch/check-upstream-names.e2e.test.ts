/**
 * A service that names its get answers by a bare slug (or a full name without version) does not
 * make `watch` see a change on every poll: its look at the service records the answer under the
 * name asked for with the answered version, as sync did (src/package-name.ts).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { loadConfig } from '../../src/config/load-config.js';
import { decodeLockfile } from '../../src/store/lockfile-format.js';
import { RoundRobin } from '../../src/util/poll-budget.js';
import { checkUpstream } from '../../src/watch/check-upstream.js';
import { disposables } from '../helpers/disposables.js';
import { type HostileService, startHostileService } from '../helpers/hostile-service.js';
import { cli, KEY, validPrompt } from '../helpers/valid-prompt.js';

const { project, defer } = disposables();
let service: HostileService;

beforeAll(async () => {
  service = await startHostileService({
    get: (asked) => {
      const slug = asked.replace(/^@acme\//, '').replace(/:.*$/, '');
      return validPrompt(`@acme/${slug}`, { version: 'v2', packageName: slug === 'bare' ? 'bare' : `@acme/${slug}` });
    },
  });
  defer(() => service.close());
});

it('finds nothing changed after a sync against bare and unversioned names', async () => {
  const dir = await project({ baseUrl: service.url, prompts: ['@acme/bare:latest', '@acme/full:latest'] });
  const run = await cli(['sync'], dir);
  expect(run.code, run.stderr).toBe(0);
  const lockfile = decodeLockfile(await readFile(path.join(dir, 'prompts.lock.json'), 'utf8'), 'prompts.lock.json');
  const config = await loadConfig({ cwd: dir, env: { PROMPTLOCK_API_KEY: KEY } });
  const client = createClient({ baseUrl: service.url, apiKey: KEY, retries: 0 });
  try {
    const state = { robin: new RoundRobin(), listing: undefined };
    const check = await checkUpstream(client, config, lockfile, state, { now: 10, share: 10, room: 10 });
    expect(check.checked.sort()).toEqual(['@acme/bare', '@acme/full']);
    expect(check.changed).toEqual([]);
  } finally {
    await client.close();
  }
});
