/**
 * Issue 30, item 5: text from the service in the CLI's output is one line of its own message and
 * never a workflow command. GitHub Actions reads every line a step prints: one whose first
 * characters are `::` (`::add-mask::`, `::error::`, `::stop-commands::`) or that holds `##[`
 * anywhere is run as a command. Through the built CLI, since the attack is what the process prints.
 */
import { describe, expect, it } from 'vitest';
import { oneLine, terminalJson, terminalText } from '../../src/terminal-text.js';
import { runBuiltCli, runCliInProcess } from '../helpers/cli.js';
import { disposables } from '../helpers/disposables.js';
import { ACME_NAME, acmePrompt, hostileService, json } from '../helpers/hostile-network.js';

const { project } = disposables();

const INJECTED = '\n::add-mask::sk\n  ::error file=x::forged\n::stop-commands::t0k3n\nok ##[error]legacy\n✔ all good';

/** Lines GitHub Actions would run as workflow commands. */
const commands = (output: string) => output.split(/\r\n|\r|\n/).filter((line) => /^\s*::/.test(line) || line.includes('##['));

describe('terminalText and oneLine', () => {
  it('write a line that starts with `::` and any `##[` so no CI reads them as commands', () => {
    expect(terminalText('::error::x\n  ::warning::y\nz ##[group]w')).toBe('\\::error::x\n  \\::warning::y\nz ##\\[group]w');
    expect(terminalText('::error file=a::b', { workflowCommand: true })).toBe('::error file=a::b');
    expect(terminalJson('{"a": "##[x]"}')).toBe('{"a": "##\\u005bx]"}');
  });

  it('oneLine shows every line break as \\n', () => {
    expect(oneLine('a\r\nb\nc\rd\u2028e')).toBe('a\\nb\\nc\\nd\\ne');
  });
});

describe('through the built CLI', () => {
  let phase: 'error' | 'v1' | 'v2' = 'error';
  const service = hostileService((req, res) => {
    if (req.url !== '/v1/prompts/get') return json(res, 404, { error: { code: 'not_found', message: 'no' } });
    if (phase === 'error') return json(res, 400, { error: { code: 'bad_request', message: `refused${INJECTED}` } });
    if (phase === 'v1') return json(res, 200, acmePrompt({ content: 'Hi {{a}}\n::add-mask::kept\nsame' }));
    return json(res, 200, {
      ...acmePrompt({ version: 'v2', content: `Hi {{b${INJECTED.replaceAll(':', ';')}}}\n::add-mask::kept\nsame ##[warning]x` }),
      [`x${INJECTED}reviewedAt`]: 2,
    });
  });

  it('sync: a service error message is one line of the error, and no command', async () => {
    const { url } = await service();
    const dir = await project({ baseUrl: url, prompts: [ACME_NAME] });
    const run = await runBuiltCli(['sync'], { cwd: dir, env: { GITHUB_ACTIONS: 'true' } });
    expect(run.code).toBe(1);
    expect(commands(run.stdout + run.stderr)).toEqual([]);
    expect(run.stderr).toMatch(/^error: .*refused\\n::add-mask::sk\\n {2}::error file=x::forged.*\\n✔ all good/m);
    expect(run.stderr).not.toMatch(/^✔ all good/m);
  });

  it('diff: prompt lines, variable names and keys print as text, never as commands', async () => {
    const { url } = await service();
    const dir = await project({ baseUrl: url, prompts: [ACME_NAME] });
    phase = 'v1';
    expect((await runCliInProcess(['sync'], { cwd: dir })).code).toBe(0);
    phase = 'v2';
    const run = await runBuiltCli(['diff'], { cwd: dir, env: { GITHUB_ACTIONS: 'true' } });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('breaking');
    expect(run.stdout).toContain('timestamps changed: x\\n::add-mask::sk\\n');
    expect(run.stdout).toContain('   \\::add-mask::kept');
    expect(commands(run.stdout + run.stderr)).toEqual([]);
    expect(run.stdout).not.toMatch(/^✔ all good/m);
  });
});
