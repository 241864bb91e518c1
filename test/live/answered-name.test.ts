/**
 * promptlock/live takes get answers named by a bare slug, a full name or a full name with
 * version, as sync does (src/package-name.ts), and serves the name it asked for with the answered
 * version; an answer for another workspace or package is refused with both names, and the
 * committed snapshot keeps being served.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { createLivePrompts, type LiveEvent } from '../../src/live/index.js';
import { LOCAL_TEST_KEY, startServer } from '../../src/server/index.js';
import { type HostileService, startHostileService } from '../helpers/hostile-service.js';
import { validPrompt } from '../helpers/valid-prompt.js';
import { type GeneratedModule, generateFrom, publish } from './helpers.js';

const cleanup: Array<() => Promise<unknown>> = [];
const NAMES = ['bare', 'full', 'versioned', 'other-ws', 'by-slug', 'other-pkg'];
/** How the hostile service names each prompt in its get answer, by package slug. */
const NAMING: Record<string, Record<string, unknown>> = {
  bare: { packageName: 'bare' },
  full: { packageName: '@acme/full' },
  versioned: { packageName: '@acme/versioned:v2' },
  'other-ws': { packageName: '@other/other-ws:v2' },
  'by-slug': { packageName: 'by-slug', workspaceSlug: 'other' },
  'other-pkg': { packageName: 'bare' },
};
let module: GeneratedModule;
let service: HostileService;

beforeAll(async () => {
  vi.stubEnv('PROMPTLOCK_API_KEY', LOCAL_TEST_KEY);
  vi.stubEnv('PROMPTLOCK_BASE_URL', '');
  const root = await mkdtemp(path.join(tmpdir(), 'promptlock-live-names-'));
  cleanup.push(() => rm(root, { recursive: true, force: true }));
  for (const slug of NAMES) await publish(path.join(root, 'ws'), `@acme/${slug}`, 'v1', 'Hello {{name}}');
  const server = await startServer({ dir: path.join(root, 'ws'), port: 0 });
  cleanup.push(() => server.close());
  module = await generateFrom(
    server.url,
    path.join(root, 'app'),
    NAMES.map((slug) => `@acme/${slug}:latest`),
  );
  service = await startHostileService({
    get: (asked) => {
      const slug = asked.replace(/^@acme\//, '').replace(/:.*$/, '');
      return validPrompt(`@acme/${slug}`, { version: 'v2', content: 'Hi {{name}}', ...NAMING[slug] });
    },
  });
  cleanup.push(() => service.close());
});
afterAll(async () => {
  for (const fn of cleanup.reverse()) await fn();
  vi.unstubAllEnvs();
});

it('serves bare, full and versioned answers under the name asked for, and refuses another workspace or package', async () => {
  const events: LiveEvent[] = [];
  const live = createLivePrompts(module.prompts, {
    baseUrl: service.url,
    lockfile: module.lockfilePath,
    onEvent: (event) => events.push(event),
  });
  cleanup.push(() => live.close());
  for (const slug of ['bare', 'full', 'versioned']) {
    const answer = await live[`@acme/${slug}`]!({ name: 'Ada' });
    expect(answer).toMatchObject({ packageName: `@acme/${slug}:v2`, version: 'v2', content: 'Hi Ada' });
  }
  const refused: Array<[string, string]> = [
    ['other-ws', '"@other/other-ws:v2"'],
    ['by-slug', 'workspace "other"'],
    ['other-pkg', '"bare"'],
  ];
  for (const [slug, said] of refused) {
    const name = `@acme/${slug}`;
    const answer = await live[name]!({ name: 'Ada' });
    expect(answer).toMatchObject({ packageName: `${name}:v1`, version: 'v1', content: 'Hello Ada' });
    const fallback = events.find((e) => e.type === 'fallback' && e.name === name) as { reason: string } | undefined;
    expect(fallback?.reason).toContain(`asked for ${name}`);
    expect(fallback?.reason).toContain(said);
    expect(live.status().find((s) => s.name === name)).toMatchObject({ source: 'snapshot', version: 'v1' });
  }
});
