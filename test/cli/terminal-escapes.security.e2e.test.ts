/**
 * Finding 10: text from outside (the service's messages and prompts, names of files in a served
 * folder) never drives the terminal: no screen clears, no window titles, no `\r` that rewrites a
 * line. The CLI's own colours stay, and only when colours are on.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/cli/logger.js';
import { terminalJson, terminalText } from '../../src/terminal-text.js';
import { runCliInProcess as runBuiltCli } from '../helpers/cli.js';
import { disposables } from '../helpers/disposables.js';
import { ACME_NAME, acmePrompt, hostileService, json, TERMINAL_CONTROLS } from '../helpers/hostile-network.js';
import { memoryIO } from '../helpers/memory-io.js';

const { project, defer } = disposables();

const HOSTILE = 'clear\x1b[2J\x1b[H title\x1b]0;pwned\x07 csi\x9b2J osc\x9d0;t\x9c fake\r✔ all good\x1b[8m hidden \u202eevil\x00\x7f';

describe('terminalText', () => {
  it('removes every sequence and control character, keeping tab and newline', () => {
    expect(terminalText(HOSTILE)).toBe('clear title csi osc fake✔ all good hidden evil');
    expect(terminalText('a\tb\nc')).toBe('a\tb\nc');
    expect(terminalText('cut \x1b[')).toBe('cut ');
  });

  it('keeps colour sequences only when asked, and nothing else', () => {
    expect(terminalText('\x1b[32mok\x1b[39m \x1b[2J\x1b]0;t\x07', { keepColors: true })).toBe('\x1b[32mok\x1b[39m ');
  });

  it('writes C1 and bidi controls in JSON as escapes, so the document means the same', () => {
    const text = terminalJson(JSON.stringify({ a: 'x\x9b2J\u202e' }));
    expect(text).toBe('{"a":"x\\u009b2J\\u202e"}');
    expect(JSON.parse(text)).toEqual({ a: 'x\x9b2J\u202e' });
  });
});

describe('the logger', () => {
  function logger(color: boolean) {
    const io = memoryIO();
    const log = createLogger({ stdout: io.stdout, stderr: io.stderr, quiet: false, verbose: true, color, secrets: [] });
    return { log, out: () => io.out() + io.err() };
  }

  it('without colours: no escape of any kind on any channel', () => {
    const { log, out } = logger(false);
    for (const write of [log.info, log.success, log.warn, log.error, log.verbose, log.result]) write(HOSTILE);
    log.info(`  ${log.colors.dim(HOSTILE)}`);
    log.json({ message: HOSTILE });
    expect(out()).not.toMatch(TERMINAL_CONTROLS);
  });

  it('with colours: only its own colours, none from the text, even inside a colour', () => {
    const { log, out } = logger(true);
    log.error(HOSTILE);
    log.warn(HOSTILE);
    log.info(`  ${log.colors.dim(HOSTILE)}`);
    const escapes = out().match(/\x1b\[[0-9;]*[A-Za-z]|\x1b[^[]/g) ?? [];
    for (const sequence of escapes) expect(sequence).toMatch(/^\x1b\[\d+m$/);
    expect(out()).not.toContain('\x1b[8m');
    expect(out()).not.toMatch(/[\x00-\x08\x0b-\x1a\x1c-\x1f\x7f-\x9f]/);
  });

  it('with colours: a diff context line cannot conceal the lines after it', async () => {
    const { diffPrompts, formatDiffText } = await import('../../src/sync/diff-prompts.js');
    const base = acmePrompt({ content: 'keep \x1b[8m\nold line\nlast' });
    const next = { ...base, version: 'v2', content: 'keep \x1b[8m\nnew line\nlast' };
    const { log, out } = logger(true);
    const diffs = diffPrompts(new Map([[ACME_NAME, base]]), new Map([[ACME_NAME, next]]));
    log.info(formatDiffText(diffs, (kind, text) => (kind === 'add' ? log.colors.green(text) : log.colors.dim(text))));
    expect(out()).toContain('new line');
    expect(out()).not.toContain('\x1b[8m');
  });
});

describe('through the built CLI', () => {
  let phase = 0;
  const service = hostileService((req, res) => {
    if (req.url !== '/v1/prompts/get') return json(res, 404, { error: { code: 'not_found', message: HOSTILE } });
    if (phase === 0) return json(res, 403, { error: { code: `forbidden${HOSTILE}`, message: HOSTILE } });
    if (phase === 1) return json(res, 400, { error: { code: `bad${HOSTILE}`, message: HOSTILE } });
    if (phase === 2) return json(res, 200, acmePrompt());
    return json(
      res,
      200,
      acmePrompt({ title: `T${HOSTILE}`, content: `Line one\n${HOSTILE}\nline three`, version: 'v2', packageName: '@acme/prompt-0000:v2' }),
    );
  });

  it("a service's error messages reach the terminal without control characters", async () => {
    const { url } = await service();
    const dir = await project({ baseUrl: url, prompts: [ACME_NAME] });
    for (const p of [0, 1]) {
      phase = p;
      const run = await runBuiltCli(['sync', '--verbose'], { cwd: dir });
      expect(run.code).toBe(1);
      // Its carriage return is shown, not obeyed: the message stays one line (issue 30, item 5).
      expect(run.stderr).toContain('fake\\n✔ all good');
      expect(run.stdout + run.stderr).not.toMatch(TERMINAL_CONTROLS);
    }
  });

  it("a prompt's texts shown by diff carry no control characters", async () => {
    const { url } = await service();
    const dir = await project({ baseUrl: url, prompts: [ACME_NAME] });
    phase = 2;
    expect((await runBuiltCli(['sync'], { cwd: dir })).code).toBe(0);
    phase = 3;
    const run = await runBuiltCli(['diff'], { cwd: dir });
    expect(run.stdout).toContain('fake✔ all good');
    expect(run.stdout + run.stderr).not.toMatch(TERMINAL_CONTROLS);
    const asJson = await runBuiltCli(['diff', '--json'], { cwd: dir });
    expect(asJson.stdout).not.toMatch(TERMINAL_CONTROLS);
    expect(JSON.stringify(JSON.parse(asJson.stdout))).toContain('\\u001b[2J');
  });

  it('serve names a badly named file of its folder without its control characters', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'promptlock-escapes-'));
    defer(() => rm(dir, { recursive: true, force: true }));
    await mkdir(path.join(dir, `acme\x1b]0;pwned\x07\x1b[2J\rws`));
    await writeFile(path.join(dir, 'README.md'), 'x');
    const run = await runBuiltCli(['serve', '--dir', dir, '--port', '0'], { cwd: dir });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('is not a valid workspace name');
    expect(run.stdout + run.stderr).not.toMatch(TERMINAL_CONTROLS);
  });
});
