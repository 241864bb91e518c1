/**
 * Each default of the config is declared once, as a `.default` of its schema
 * (src/config/config-schema.ts), and said in two places a user reads: the JSDoc `@default` of the
 * option (what an editor shows on `defineConfig`) and the README's "Configuration" table and
 * example. Both are read here and compared with what the schema applies to an empty config.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { configSchema, configShape } from '../../src/config/config-schema.js';
import { DEFAULT_LIMITS } from '../../src/limits.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const OPTIONS = Object.keys(configShape).sort();
const DEFAULTS: Record<string, unknown> = configSchema.parse({});

/** A default as the docs write it (`'prompts'`, `30`, `[]`, `{ promptBytes: 1000000, … }`), or undefined when it is words. */
function literal(text: string): unknown {
  const json = text
    .trim()
    .replace(/'([^']*)'/g, '"$1"')
    .replace(/([{,]\s*)([A-Za-z]\w*)\s*:/g, '$1"$2":');
  try {
    return { value: JSON.parse(json) as unknown };
  } catch {
    return undefined;
  }
}

/** Each option's JSDoc `@default`, read from the source of `configShape`, as written. */
function jsdocDefaults(): Record<string, string | undefined> {
  const file = `${ROOT}src/config/config-schema.ts`;
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: Record<string, string | undefined> = {};
  const visit = (node: ts.Node): void => {
    if (ts.isVariableDeclaration(node) && node.name.getText() === 'configShape' && node.initializer) {
      for (const property of (node.initializer as ts.ObjectLiteralExpression).properties) {
        const tag = ts.getJSDocTags(property).find((t) => t.tagName.text === 'default');
        found[property.name!.getText()] = tag ? ts.getTextOfJSDocComment(tag.comment)?.trim() : undefined;
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The README's "Configuration" section: its table (option → default cell, meaning) and its example's `key: value` lines. */
function readmeConfiguration() {
  const readme = readFileSync(`${ROOT}README.md`, 'utf8');
  const section = readme.slice(readme.indexOf('\n## Configuration\n'), readme.indexOf('\n## ', readme.indexOf('\n## Configuration\n') + 1));
  const rows = new Map<string, { cell: string; meaning: string }>();
  for (const line of section.split('\n')) {
    const row = /^\| `(\w+)` \| (.*?) \| (.*) \|$/.exec(line);
    if (row) rows.set(row[1]!, { cell: row[2]!, meaning: row[3]! });
  }
  const example = /```ts\n([\s\S]*?)```/.exec(section)![1]!;
  const written = new Map<string, string>();
  for (const line of example.split('\n')) {
    const entry = /^\s+(\w+): (.*?),\s*(\/\/.*)?$/.exec(line);
    if (entry) written.set(entry[1]!, entry[2]!);
  }
  return { rows, written };
}

/** `1,000,000` → 1000000; `128 MiB` → 134217728. */
function amount(text: string): number {
  const mib = /^([\d,]+) MiB$/.exec(text);
  return mib ? Number(mib[1]!.replaceAll(',', '')) * 1024 * 1024 : Number(text.replaceAll(',', ''));
}

describe('config defaults, declared once in the schema', () => {
  const jsdoc = jsdocDefaults();
  const { rows, written } = readmeConfiguration();

  it('every option has its JSDoc, and its README row', () => {
    expect(Object.keys(jsdoc).sort()).toEqual(OPTIONS);
    expect([...rows.keys()].sort()).toEqual(OPTIONS);
  });

  it.each(OPTIONS)('%s: the JSDoc @default and the README say the default the schema applies', (option) => {
    const applied = DEFAULTS[option];
    const stated = jsdoc[option];
    const { cell, meaning } = rows.get(option)!;
    if (applied === undefined) {
      // No default: neither says one.
      expect(stated).toBeUndefined();
      expect(cell).toBe('—');
      return;
    }
    expect(stated, `${option} has no @default`).toBeDefined();
    const value = literal(stated!);
    if (value) expect(value, `the @default of ${option}`).toEqual({ value: applied });
    // A default said in words (`prompts`: every prompt, at latest) stands for an empty list, and the README says the same words.
    else expect(applied).toEqual([]);
    if (option === 'limits') {
      // Each limit is named in the row with its default.
      const named = Object.fromEntries([...meaning.matchAll(/`(\w+)` \(([\d,]+(?: MiB)?)\)/g)].map((m) => [m[1]!, amount(m[2]!)]));
      expect(named).toEqual({ ...DEFAULT_LIMITS });
      return;
    }
    const shown = /^`(.*)`$/.exec(cell);
    if (value) expect(shown && literal(shown[1]!), `README's default of ${option}`).toEqual({ value: applied });
    else expect(cell).toBe(stated);
  });

  it("the README's example writes the defaults where it writes an option the table defaults", () => {
    for (const [option, text] of written) {
      if (option === 'prompts') continue; // an example of entries, not the default
      expect(literal(text), `${option} in the README's example`).toEqual({ value: DEFAULTS[option] });
    }
    expect(written.size).toBeGreaterThan(3);
  });
});
