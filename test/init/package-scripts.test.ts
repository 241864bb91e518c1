import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { addPackageScripts } from '../../src/init/index.js';
import { PREPARE_SCRIPT } from '../../src/init/package-scripts.js';

const json = (value: unknown, indent: string | number = 2) => `${JSON.stringify(value, null, indent)}\n`;

describe('addPackageScripts', () => {
  it.each([
    [
      'no scripts field: adds one at the end',
      json({ name: 'app', version: '1.0.0' }),
      json({ name: 'app', version: '1.0.0', scripts: { prepare: PREPARE_SCRIPT, 'prompts:sync': 'promptlock sync' } }),
      ['added', 'added'],
    ],
    [
      'existing scripts kept in order, 4-space indent kept',
      json({ name: 'app', scripts: { build: 'tsc', test: 'vitest' } }, 4),
      json({ name: 'app', scripts: { build: 'tsc', test: 'vitest', prepare: PREPARE_SCRIPT, 'prompts:sync': 'promptlock sync' } }, 4),
      ['added', 'added'],
    ],
    [
      'tab indent and no final newline kept',
      JSON.stringify({ name: 'app', scripts: {} }, null, '\t'),
      JSON.stringify({ name: 'app', scripts: { prepare: PREPARE_SCRIPT, 'prompts:sync': 'promptlock sync' } }, null, '\t'),
      ['added', 'added'],
    ],
    [
      'an existing prepare is chained',
      json({ scripts: { prepare: 'husky' } }),
      json({ scripts: { prepare: `husky && (${PREPARE_SCRIPT})`, 'prompts:sync': 'promptlock sync' } }),
      ['chained', 'added'],
    ],
    [
      'a prompts:sync that already runs promptlock sync is left as is',
      json({ scripts: { 'prompts:sync': 'promptlock sync --verbose' } }),
      json({ scripts: { 'prompts:sync': 'promptlock sync --verbose', prepare: PREPARE_SCRIPT } }),
      ['added', 'present'],
    ],
    [
      'another prompts:sync is kept, not clobbered',
      json({ scripts: { 'prompts:sync': './sync.sh' } }),
      json({ scripts: { 'prompts:sync': './sync.sh', prepare: PREPARE_SCRIPT } }),
      ['added', 'kept'],
    ],
    [
      'CRLF line endings kept',
      json({ name: 'app' }).replace(/\n/g, '\r\n'),
      json({ name: 'app', scripts: { prepare: PREPARE_SCRIPT, 'prompts:sync': 'promptlock sync' } }).replace(/\n/g, '\r\n'),
      ['added', 'added'],
    ],
  ])('%s', (_title, given, want, actions) => {
    const edit = addPackageScripts(given, 'package.json');
    expect(edit.text).toBe(want);
    expect(edit.changed).toBe(true);
    expect(edit.scripts.map((script) => script.action)).toEqual(actions);
  });

  it('leaves a package.json that already runs promptlock byte-identical', () => {
    const given = `${JSON.stringify({ scripts: { prepare: `husky && (${PREPARE_SCRIPT})`, 'prompts:sync': 'promptlock sync' } }, null, 2)}\n`;
    const edit = addPackageScripts(given, 'package.json');
    expect(edit).toMatchObject({ text: given, changed: false });
    expect(edit.scripts.map((script) => script.action)).toEqual(['present', 'present']);
  });

  it.each([
    ['alone', 'promptlock generate', PREPARE_SCRIPT, 'added'],
    ['chained after another step', 'husky && promptlock generate', `husky && (${PREPARE_SCRIPT})`, 'chained'],
    ['chained before another step', 'promptlock generate && husky', `(${PREPARE_SCRIPT}) && husky`, 'chained'],
  ])('guards the unguarded prepare of earlier versions (%s) in place', (_title, before, after, action) => {
    const edit = addPackageScripts(json({ scripts: { prepare: before, 'prompts:sync': 'promptlock sync' } }), 'package.json');
    expect(JSON.parse(edit.text).scripts.prepare).toBe(after);
    expect(edit.scripts[0]!.action).toBe(action);
  });

  it.each([
    ['invalid JSON', '{ "name": ', /^\/app\/package\.json is not valid JSON at line 1, column 11: value expected\.$/],
    ['not an object', '[]', /^\/app\/package\.json is not a JSON object\.$/],
    ['scripts not an object', '{ "scripts": ["build"] }', /^The "scripts" field of \/app\/package\.json is not an object\.$/],
  ])('refuses %s', (_title, given, message) => {
    const error = (() => {
      try {
        addPackageScripts(given, '/app/package.json');
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toMatch(message);
    expect((error as ConfigError).hint).toContain('--no-package-json');
  });
});
