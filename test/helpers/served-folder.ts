import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { encodeSnapshot } from '../../src/store/snapshot-format.js';
import type { Prompt } from '../../src/types.js';

/** A prompt of a generated workspace: `revision` changes its text and version. */
export function generatedPrompt(index: number, revision: number, workspace = 'bulk'): Prompt {
  const pkg = `prompt-${String(index).padStart(4, '0')}`;
  const lines = Array.from(
    { length: 20 },
    (_, line) => `Line ${line} of ${pkg}, revision ${revision}: {{name_${line % 3}}} says \`hi\` ${'x'.repeat(40)}`,
  );
  return {
    id: `pmt_${workspace}_${index}`,
    title: `Prompt ${index}`,
    content: lines.join('\n'),
    systemPrompt: `System for {{name_0:string // who}} r${revision}`,
    description: null,
    category: 'bulk',
    tags: ['bulk'],
    version: `v${revision}`,
    workspaceSlug: workspace,
    packageName: `@${workspace}/${pkg}:v${revision}`,
    context: [],
    metadata: { createdAt: 1_700_000_000_000 + index },
  };
}

/** Writes `count` prompts as a snapshots folder that `promptlock serve` can serve. */
export async function writeServedFolder(dir: string | undefined, count: number, revision: number): Promise<string> {
  const root = dir ?? (await mkdtemp(path.join(tmpdir(), 'promptlock-served-')));
  for (let i = 0; i < count; i++) {
    const prompt = generatedPrompt(i, revision);
    const pkg = prompt.packageName.split('/')[1]!.split(':')[0]!;
    await mkdir(path.join(root, prompt.workspaceSlug), { recursive: true });
    await writeFile(path.join(root, prompt.workspaceSlug, `${pkg}.json`), encodeSnapshot(prompt));
  }
  return root;
}
