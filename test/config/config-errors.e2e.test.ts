/** Item 4: config syntax and load errors show file:line:column and a code frame, without --verbose. */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { runCliInProcess as runBuiltCli } from '../helpers/cli.js';
import { removeDir } from '../helpers/project.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await removeDir(dir);
});

it.each([
  [
    'a TypeScript syntax error',
    'prompts.config.ts',
    "export default {\n  prompts: ['@acme/welcome'\n  output: 'src/prompts.ts',\n};\n",
    ':3:3: Unexpected token, expected ","',
    ["  2 |   prompts: ['@acme/welcome'", "> 3 |   output: 'src/prompts.ts',", '    |   ^'],
  ],
  [
    'an error thrown while the config runs',
    'prompts.config.mjs',
    "const base = process.env.NOPE;\nif (!base) throw new Error('NOPE is not set');\nexport default { prompts: [] };\n",
    ':2:18: NOPE is not set',
    ["> 2 | if (!base) throw new Error('NOPE is not set');", '    |                  ^'],
  ],
  [
    'a JSON trailing comma',
    'prompts.config.json',
    '{\n  "prompts": [\n    "@acme/welcome",\n  ]\n}\n',
    ':4:3: Unexpected token',
    ['  3 |     "@acme/welcome",', '> 4 |   ]', '    |   ^'],
  ],
])('%s: exit 2 with file:line:column and a code frame', async (_title, file, text, where, frame) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'promptlock-config-error-'));
  dirs.push(dir);
  await writeFile(path.join(dir, file), text);
  const run = await runBuiltCli(['generate'], { cwd: dir });
  expect(run.code).toBe(2);
  const first = run.stderr.split('\n')[0]!;
  expect(first).toContain(`error: Could not load config file ${file}${where}`);
  const lines = run.stderr.split('\n');
  for (const line of frame) expect(lines).toContain(line);
});
