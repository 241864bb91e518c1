/**
 * Issue 30, item 6: characters a reviewer cannot see (bidi controls, zero-width characters, the
 * byte-order mark, invisible tag characters) are written as escapes wherever a reviewer reads a
 * text from the service: the generated module's literals and JSDoc, the snapshot, the pull-request
 * body. The values the module returns stay exact, and so does the snapshot's value and integrity.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateModule } from '../../src/codegen/index.js';
import { integrityOf } from '../../src/store/integrity.js';
import { decodeSnapshot, encodeSnapshot, snapshotIntegrity } from '../../src/store/snapshot-format.js';
import { diffPrompts } from '../../src/sync/diff-prompts.js';
import { pullRequestReport } from '../../src/sync/pull-request-report.js';
import type { Prompt } from '../../src/types.js';
import { codegenPrompt, importModule, tempDir } from './helpers.js';

/** Right-to-left override, isolates, zero-width space and joiner, word joiner, BOM, soft hyphen, an Arabic mark, a tag character. */
const TROJAN = 'a\u202eb\u2066c\u2069 d\u200be\u200df\u2060g\ufeffh\u00adi\u061cj\u{e0041}k';
/** What a reader cannot see, as the escapers write none of it raw. */
const HIDDEN = /[\p{Cf}\u2028\u2029\u007f-\u009f]/u;

const item = codegenPrompt('@acme/trojan', {
  title: `Title ${TROJAN}`,
  description: `Described ${TROJAN}`,
  content: `Line one\nisAdmin = false ${TROJAN} {{name}}\nline three`,
  systemPrompt: `System ${TROJAN}`,
  tags: [`tag ${TROJAN}`],
  extra: { [`key ${TROJAN}`]: `value ${TROJAN}` },
} as Partial<Prompt>);

let dir: { dir: string; remove: () => Promise<void> };
beforeAll(async () => {
  dir = await tempDir('hidden');
});
afterAll(() => dir.remove());

describe('the generated module', () => {
  const source = generateModule([item]);

  it('holds no hidden character: literals escape them, JSDoc shows them', () => {
    expect(source).not.toMatch(HIDDEN);
    expect(source).toMatch(/\/\*\*.*Title a\\u202eb\\u2066c/);
  });

  it('returns exactly the texts, keys and values of the prompt', async () => {
    const mod = await importModule<Record<string, (v: unknown) => Record<string, unknown>>>(source, dir.dir);
    const rendered = mod.trojan!({ name: 'N' });
    expect(rendered.title).toBe(item.prompt.title);
    expect(rendered.content).toBe(item.prompt.content.replace('{{name}}', 'N'));
    expect(rendered.systemPrompt).toBe(item.prompt.systemPrompt);
    expect(rendered.tags).toEqual(item.prompt.tags);
    expect(rendered.extra).toEqual((item.prompt as Record<string, unknown>).extra);
  });
});

describe('the snapshot', () => {
  const text = encodeSnapshot(item.prompt);
  /** The same JSON with every character raw: what earlier releases wrote and locked. */
  const raw = `${JSON.stringify(JSON.parse(text), null, 2)}\n`;

  it('writes them as JSON escapes, on the same lines, and reads back the same prompt', () => {
    expect(text).not.toMatch(HIDDEN);
    expect(text).toContain('isAdmin = false a\\u202eb\\u2066c');
    expect(raw).toMatch(HIDDEN);
    expect(text.split('\n').length).toBe(raw.split('\n').length);
    expect(decodeSnapshot(text, 'x.json')).toEqual(item.prompt);
  });

  it('keeps the integrity of the value: a lockfile written before (raw characters) still matches', () => {
    expect(snapshotIntegrity(item.prompt)).toBe(integrityOf(raw));
    expect(snapshotIntegrity(decodeSnapshot(raw, 'x.json'))).toBe(item.entry.integrity);
  });
});

describe('the pull-request body', () => {
  it('shows them as escapes in the diff, names and keys', () => {
    const before = new Map([[item.name, { ...item.prompt, content: 'Line one\nisAdmin = false {{name}}\nline three' }]]);
    const after = new Map([[item.name, { ...item.prompt, version: 'v2', [`note ${TROJAN}At`]: 1 }]]);
    const { body } = pullRequestReport(diffPrompts(before, after), { before, after }, { snapshotsDir: 'prompts' });
    expect(body).toContain('+isAdmin = false a\\u202eb');
    expect(body).not.toMatch(HIDDEN);
  });
});
