/**
 * Issue 30, item 12: `serve` of a synced snapshots folder finds every context file sync wrote,
 * including those whose names sync changed to be safe on every disk (`ü.txt` → `txt`, a long name
 * shortened with a hash): both name a file with the one function of the snapshot format.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LOCAL_TEST_KEY } from '../../src/server/index.js';
import { runCliInProcess } from '../helpers/cli.js';
import { disposables } from '../helpers/disposables.js';

const { serve, project, folder } = disposables();
const LONG = `${'a-very-long-attachment-name-'.repeat(5)}end.md`;

describe('serve of a synced snapshots folder', () => {
  it('downloads each context file sync wrote, renamed ones included', async () => {
    const authored = await folder({
      'acme/doc/prompt.json': JSON.stringify({
        context: [
          { type: 'file', label: 'umlaut', file: 'files/ü.txt' },
          { type: 'file', label: 'long', file: `files/${LONG}` },
          { type: 'file', label: 'plain', file: 'files/plain.md' },
        ],
      }),
      'acme/doc/files/ü.txt': 'umlaut bytes',
      [`acme/doc/files/${LONG}`]: 'long bytes',
      'acme/doc/files/plain.md': 'plain bytes',
      'acme/doc/v1.md': 'Read the attachments.',
    });
    const upstream = await serve({ dir: authored });
    const dir = await project({ baseUrl: upstream.url, prompts: ['@acme/doc'], contextFiles: true });
    const sync = await runCliInProcess(['sync'], { cwd: dir, env: { PROMPTLOCK_API_KEY: LOCAL_TEST_KEY } });
    expect(sync.code, sync.stderr).toBe(0);

    const local = await serve({ dir: path.join(dir, 'prompts') });
    const headers = { authorization: `Bearer ${LOCAL_TEST_KEY}`, 'content-type': 'application/json' };
    const got = await fetch(`${local.url}/v1/prompts/get`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ package_name: '@acme/doc' }),
    });
    const prompt = (await got.json()) as { context: Array<{ id: string; label: string }> };
    const bodies: Record<string, string> = {};
    for (const item of prompt.context) {
      const link = await fetch(`${local.url}/api/v1/prompts/context/download-url?contextId=${item.id}`, { headers });
      expect(link.status, item.label).toBe(200);
      const file = await fetch(((await link.json()) as { url: string }).url);
      expect(file.status, item.label).toBe(200);
      bodies[item.label] = await file.text();
    }
    expect(bodies).toEqual({ umlaut: 'umlaut bytes', long: 'long bytes', plain: 'plain bytes' });
  });
});
