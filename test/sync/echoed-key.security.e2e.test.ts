/**
 * Finding 11: a service that echoes the Authorization header into a prompt (any field, any depth)
 * gets the prompt refused: the error names the prompt and the field, the key only masked, and
 * nothing is written.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { maskKey } from '../../src/secrets.js';
import { disposables } from '../helpers/disposables.js';
import { type HostileService, startHostileService } from '../helpers/hostile-service.js';
import { allText } from '../helpers/project.js';
import { cli, KEY, validPrompt } from '../helpers/valid-prompt.js';

const { project, defer } = disposables();
let service: HostileService;

beforeAll(async () => {
  service = await startHostileService({
    get: (name, authorization) =>
      name.startsWith('@acme/deep')
        ? validPrompt('@acme/deep', { metadata: { createdAt: 1, echo: { request: [{ headers: `Authorization: ${authorization}` }] } } })
        : validPrompt('@acme/text', { content: `You said ${authorization}` }),
  });
  defer(() => service.close());
});

it.each([
  ['@acme/deep', 'metadata.echo.request[0].headers'],
  ['@acme/text', 'content'],
])('refuses %s, which holds the key in %s', async (name, field) => {
  const dir = await project({ baseUrl: service.url, prompts: [name] });
  const run = await cli(['sync'], dir);
  expect(run.code, run.stderr).toBe(1);
  expect(run.stderr).toContain(name);
  expect(run.stderr).toContain(`"${field}"`);
  expect(run.stderr).toContain(maskKey(KEY));
  expect(run.stdout + run.stderr).not.toContain(KEY);
  expect(existsSync(path.join(dir, 'prompts.lock.json'))).toBe(false);
  expect(await allText(dir)).not.toContain(KEY);
});
