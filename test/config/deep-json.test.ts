/**
 * Issue 19, item 24: a JSON config nested 100,000 deep crashed the error locator with a stack
 * overflow. It is a configuration error naming the file, the line and column where the nesting
 * goes too deep, with a code frame of bounded size.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { ConfigError } from '../../src/errors.js';
import { removeDir } from '../helpers/project.js';

const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map(removeDir)));

async function load(text: string): Promise<unknown> {
  const dir = await mkdtemp(path.join(tmpdir(), 'promptlock-deep-json-'));
  dirs.push(dir);
  await writeFile(path.join(dir, 'prompts.config.json'), text);
  return loadConfig({ cwd: dir, env: {} }).catch((error: unknown) => error);
}

const DEPTH = 100_000;

it('an invalid config nested 100,000 deep is a ConfigError with a place, not a crash', async () => {
  const error = await load(`{"prompts": [], "x": ${'['.repeat(DEPTH)}oops`);
  expect(error).toBeInstanceOf(ConfigError);
  const message = (error as ConfigError).message;
  expect(message).toMatch(/^Could not load config file .*prompts\.config\.json:1:85: the JSON nests more than 64 levels deep\n/);
  expect(message.length).toBeLessThan(1_000);
});

it('an ordinary JSON error still shows where, in JSON.parse words', async () => {
  const error = await load('{\n  "prompts": [\n    "@acme/a",\n  ]\n}\n');
  expect((error as ConfigError).message).toMatch(/prompts\.config\.json:4:3: .*\n.*\n {2}3 \| {5}"@acme\/a",\n> 4 \| {3}\]\n {4}\| {3}\^/);
});
