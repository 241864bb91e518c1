/** The served folder: hand-authored format rules, snapshot folders, deterministic ids, and load errors. */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServer } from '../../src/server/index.js';
import { encodeSnapshot } from '../../src/store/snapshot-format.js';
import type { Prompt } from '../../src/types.js';
import { call, getPrompt, serverPool } from './helpers.js';

const pool = serverPool();
afterAll(() => pool.closeAll());

/** Writes `files` (relative path → text) into a fresh folder. */
async function folder(files: Record<string, string | Buffer>): Promise<string> {
  const dir = await pool.tempDir(false);
  for (const [relative, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, relative)), { recursive: true });
    writeFileSync(path.join(dir, relative), content);
  }
  return dir;
}

describe('hand-authored format', () => {
  it('strips exactly one trailing newline (LF or CRLF) and a BOM, nothing else', async () => {
    const dir = await folder({
      'ws/a/v1.md': 'two newlines\n\n',
      'ws/a/v2/content.md': '\ufeffcrlf\r\n',
      'ws/a/v2/system.md': '  spaces kept  ',
      'ws/a/v3.md': 'line\u2028sep\n',
    });
    const server = await pool.start({ dir });
    expect((await getPrompt(server, '@ws/a:v1')).body.content).toBe('two newlines\n');
    expect((await getPrompt(server, '@ws/a:v2')).body.content).toBe('crlf');
    expect((await getPrompt(server, '@ws/a:v2')).body.systemPrompt).toBe('  spaces kept  ');
    expect((await getPrompt(server, '@ws/a:v3')).body.content).toBe('line\u2028sep');
  });

  it('defaults the title, derives ids and times deterministically, and applies per-version overrides', async () => {
    const files = {
      'ws/support-reply/v1.md': 'one',
      'ws/support-reply/v2/content.md': 'two',
      'ws/support-reply/v2/prompt.json': JSON.stringify({ title: 'Second', tags: ['x'], createdAt: '2025-03-01T00:00:00Z' }),
      'ws/support-reply/draft.md': 'draft',
      'ws/given/prompt.json': JSON.stringify({ id: 'pmt_given', title: 'Given', createdAt: 1700000000000 }),
      'ws/given/v1.md': 'g',
    };
    const [a, b] = await Promise.all([folder(files), folder(files)]);
    const [sa, sb] = await Promise.all([pool.start({ dir: a }), pool.start({ dir: b })]);
    const v1 = (await getPrompt(sa, '@ws/support-reply:v1')).body;
    expect(v1).toMatchObject({ title: 'Support reply', tags: [], description: null, category: null, systemPrompt: null });
    expect((await getPrompt(sb, '@ws/support-reply:v1')).body.id).toBe(v1.id);
    expect((await getPrompt(sb, '@ws/support-reply:v1')).body.metadata.createdAt).toBe(v1.metadata.createdAt);
    const v2 = (await getPrompt(sa, '@ws/support-reply:v2')).body;
    expect(v2).toMatchObject({ id: v1.id, title: 'Second', tags: ['x'], metadata: { createdAt: Date.parse('2025-03-01T00:00:00Z') } });
    const draft = (await getPrompt(sa, '@ws/support-reply:draft')).body;
    expect(draft.metadata.createdAt).toBeGreaterThan(v1.metadata.createdAt);
    expect((await getPrompt(sa, '@ws/given')).body).toMatchObject({ id: 'pmt_given', metadata: { createdAt: 1700000000000 } });
  });

  it('serves a draft-only package as draft, and says why latest is missing', async () => {
    const server = await pool.start({ dir: await folder({ 'ws/wip/draft/content.md': 'soon' }) });
    expect((await getPrompt(server, '@ws/wip:draft')).body.version).toBe('v0');
    const latest = await getPrompt(server, '@ws/wip');
    expect(latest.status).toBe(404);
    expect(latest.body.error.message).toBe('Prompt @ws/wip not found: @ws/wip has no published version (only a draft).');
    expect((await call(server, '/v1/prompts')).body.prompts).toEqual([expect.objectContaining({ packageName: '@ws/wip', version: 'v0' })]);
  });

  const broken: Array<[string, { files: Record<string, string>; message: RegExp }]> = [
    ['a leading zero', { files: { 'ws/a/v01.md': 'x' }, message: /v01\.md: versions are numbered v1, v2, … without leading zeros\./ }],
    ['v0 instead of draft', { files: { 'ws/a/v0.md': 'x' }, message: /versions are numbered v1, v2/ }],
    ['a version twice', { files: { 'ws/a/v2.md': 'x', 'ws/a/v2/content.md': 'y' }, message: /defines v2 twice: v2 and v2\.md\./ }],
    ['no content.md', { files: { 'ws/a/v1/system.md': 'x' }, message: /v1 has no content\.md: every version needs its content\./ }],
    [
      'a stray file in a version',
      { files: { 'ws/a/v1/content.md': 'x', 'ws/a/v1/contents.md': 'y' }, message: /Unexpected file .*contents\.md\./ },
    ],
    ['no versions', { files: { 'ws/a/prompt.json': '{}' }, message: /a has no versions\./ }],
    [
      'a misspelt key',
      {
        files: { 'ws/a/prompt.json': '{"titel": "x"}', 'ws/a/v1.md': 'x' },
        message: /Invalid value in .*prompt\.json: Unrecognized key: "titel"/,
      },
    ],
    ['bad JSON', { files: { 'ws/a/prompt.json': '{', 'ws/a/v1.md': 'x' }, message: /prompt\.json is not valid JSON/ }],
    [
      'a context file outside the package',
      {
        files: { 'ws/a/prompt.json': '{"context":[{"type":"file","file":"../b/v1.md"}]}', 'ws/a/v1.md': 'x', 'ws/b/v1.md': 'y' },
        message: /context file "\.\.\/b\/v1\.md" must be a path inside the package folder\./,
      },
    ],
    [
      'an absolute context file',
      {
        files: { 'ws/a/prompt.json': '{"context":[{"type":"file","file":"/etc/hostname"}]}', 'ws/a/v1.md': 'x' },
        message: /must be a path inside the package folder/,
      },
    ],
    [
      'a missing context file',
      {
        files: { 'ws/a/prompt.json': '{"context":[{"type":"file","file":"files/nope.pdf"}]}', 'ws/a/v1.md': 'x' },
        message: /context file "files\/nope\.pdf" does not exist/,
      },
    ],
    ['a non-slug workspace', { files: { 'My Workspace/a/v1.md': 'x' }, message: /"My Workspace" is not a valid workspace name/ }],
    ['a non-slug package', { files: { 'ws/Bad_Name/v1.md': 'x' }, message: /"Bad_Name" is not a valid package name/ }],
  ];
  it.each(broken)('refuses to start on %s, naming the file', async (_name, { files, message }) => {
    const dir = await folder(files);
    await expect(startServer({ dir })).rejects.toThrow(message);
  });

  it('gathers several broken packages into one error, and rejects a missing folder', async () => {
    const dir = await folder({ 'ws/a/v01.md': 'x', 'ws/b/v1/system.md': 'y' });
    await expect(startServer({ dir })).rejects.toMatchObject({
      name: 'AggregatePromptlockError',
      errors: [expect.anything(), expect.anything()],
    });
    await expect(startServer({ dir: path.join(dir, 'missing') })).rejects.toThrow(/does not exist/);
  });

  it('ignores dot-entries and files at the top level', async () => {
    const server = await pool.start({
      dir: await folder({ 'README.md': '# hi', '.git/HEAD': 'x', 'ws/.hidden/v1.md': 'x', 'ws/notes.txt': 'x', 'ws/a/v1.md': 'a' }),
    });
    expect((await call(server, '/v1/prompts')).body.prompts.map((p: { packageName: string }) => p.packageName)).toEqual(['@ws/a']);
  });
});

describe('snapshots folder', () => {
  const snapshot = (version: string, extra: Partial<Prompt> = {}): Prompt => ({
    id: 'pmt_snap',
    title: 'Snap',
    content: 'Hi {{name}},\nline two',
    systemPrompt: 'sys',
    description: null,
    category: 'c',
    tags: ['t'],
    version,
    workspaceSlug: 'acme',
    packageName: `@acme/snap:${version}`,
    context: [{ id: 'ctx_1', type: 'file', label: 'FAQ', fileName: 'faq.txt', fileSize: 3, mimeType: 'text/plain', createdAt: 1 }],
    metadata: { createdAt: 1705400000000 },
    ...extra,
  });

  it('serves each snapshot as its version (v0 = draft), with synced context files', async () => {
    const dir = await folder({
      'acme/snap.json': encodeSnapshot(snapshot('v4')),
      'acme/snap.files/faq.txt': 'faq',
      'acme/wip.json': encodeSnapshot(snapshot('v0', { id: 'pmt_wip', packageName: '@acme/wip:v0', context: [] })),
      'prompts.lock.json': '{}',
    });
    const server = await pool.start({ dir });
    const got = await getPrompt(server, '@acme/snap', { name: 'Bo' });
    expect(got.body).toMatchObject({
      ...snapshot('v4'),
      content: 'Hi Bo,\nline two',
      metadata: { createdAt: 1705400000000, generatedAt: expect.any(Number) },
    });
    expect((await getPrompt(server, '@acme/snap:v4')).status).toBe(200);
    expect((await getPrompt(server, '@acme/snap:v3')).status).toBe(404);
    expect((await getPrompt(server, '@acme/wip:draft')).body.version).toBe('v0');
    const link = await call(server, '/api/v1/prompts/context/download-url?contextId=ctx_1');
    expect(await (await fetch(link.body.url)).text()).toBe('faq');
  });

  it('serves a folder mixing both forms, and refuses one version defined twice', async () => {
    const mixed = await folder({ 'acme/snap.json': encodeSnapshot(snapshot('v2')), 'acme/snap/v1.md': 'authored v1' });
    const server = await pool.start({ dir: mixed });
    expect((await getPrompt(server, '@acme/snap:v1')).body.content).toBe('authored v1');
    expect((await getPrompt(server, '@acme/snap')).body.version).toBe('v2');
    const clash = await folder({ 'acme/snap.json': encodeSnapshot(snapshot('v1')), 'acme/snap/v1.md': 'x' });
    await expect(startServer({ dir: clash })).rejects.toThrow(/v1 is defined both in/);
  });
});
