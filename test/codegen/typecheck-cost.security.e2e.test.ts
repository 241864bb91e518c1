/**
 * Finding 8: type-checking a generated module costs time linear in its placeholders (each text is
 * one template literal, the values one destructured read), and a prompt's placeholders and
 * bytes are capped by `limits.placeholders` and `limits.promptBytes`, each refused with an error
 * naming the prompt, the limit and the option. Timing is not asserted (benchmarks do that): the
 * 10,000-placeholder module took 195 s to check before and fits the test timeout only when linear.
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { generateModule, typecheckModule } from '../../src/codegen/index.js';
import { lockPrompt } from '../../src/sync/fetch-prompt.js';
import { runCliInProcess } from '../helpers/cli.js';
import { disposables } from '../helpers/disposables.js';
import { type HostileService, startHostileService } from '../helpers/hostile-service.js';
import { KEY, validPrompt } from '../helpers/valid-prompt.js';

const { project, defer } = disposables();
let service: HostileService;
const answers = new Map<string, unknown>();

beforeAll(async () => {
  service = await startHostileService({ get: (name) => answers.get(name.replace(/:.*$/, '')) });
  defer(() => service.close());
});

/** The CLI in this process: these refusals need no process of their own. */
const cli = (args: string[], cwd: string) => runCliInProcess(args, { cwd, env: { PROMPTLOCK_API_KEY: KEY } });

function manyPlaceholders(count: number): string {
  let text = '';
  for (let i = 0; i < count; i++) text += `line ${i} {{var${i}}}\n`;
  return text;
}

it('emits one template literal per text and type-checks 10,000 placeholders clean', async () => {
  const prompt = validPrompt('@acme/big', { content: manyPlaceholders(10_000) });
  const { entry } = lockPrompt('@acme/big', null, prompt);
  const source = generateModule([{ name: '@acme/big', entry, prompt }]);
  expect(source).toContain('const [var0, var1, var2,');
  expect(source).toContain('= $readVariables("@acme/big", variables, ["var0", "var1",');
  expect(source).toContain('content: `line 0 ${var0}\nline 1 ${var1}\n');
  // No chain of concatenated values: the quadratic shape of before.
  expect(source).not.toMatch(/\+ var\d/);
  expect(await typecheckModule(source)).toEqual([]);
}, 120_000);

it('refuses a prompt over the placeholder limit at sync, naming the prompt, limit and option; the config raises it', async () => {
  answers.set('@acme/many', validPrompt('@acme/many', { content: manyPlaceholders(2_001) }));
  const dir = await project({ baseUrl: service.url, prompts: ['@acme/many'] });
  const refused = await cli(['sync'], dir);
  expect(refused.code, refused.stderr).toBe(1);
  expect(refused.stderr).toContain('@acme/many');
  expect(refused.stderr).toContain('limits.placeholders');
  expect(refused.stderr).toContain('2000');
  expect(existsSync(path.join(dir, 'prompts.lock.json'))).toBe(false);

  await writeFile(
    path.join(dir, 'prompts.config.json'),
    JSON.stringify({ baseUrl: service.url, prompts: ['@acme/many'], limits: { placeholders: 3_000 } }),
  );
  const raised = await cli(['sync'], dir);
  expect(raised.code, raised.stderr).toBe(0);
  // generate with the same config reads the snapshot under the raised limit too.
  expect((await cli(['generate', '--force'], dir)).code).toBe(0);

  // The same snapshot under the default limit: generate refuses it, naming the file and option.
  await writeFile(path.join(dir, 'prompts.config.json'), JSON.stringify({ baseUrl: service.url, prompts: ['@acme/many'] }));
  const lowered = await cli(['generate', '--force'], dir);
  expect(lowered.code, lowered.stderr).toBe(1);
  expect(lowered.stderr).toMatch(/acme[\\/]many\.json/);
  expect(lowered.stderr).toContain('limits.placeholders');
});

it('refuses a prompt over the byte limit at sync', async () => {
  answers.set('@acme/huge', validPrompt('@acme/huge', { content: 'x'.repeat(1_100_000) }));
  const dir = await project({ baseUrl: service.url, prompts: ['@acme/huge'] });
  const run = await cli(['sync'], dir);
  expect(run.code, run.stderr).toBe(1);
  expect(run.stderr).toContain('@acme/huge');
  expect(run.stderr).toContain('limits.promptBytes');
  expect(await readFile(path.join(dir, 'prompts.config.json'), 'utf8')).not.toContain('lock');
  expect(existsSync(path.join(dir, 'prompts.lock.json'))).toBe(false);
});
