/**
 * Folders that `promptlock serve` serves, in the snapshot format (`<dir>/<workspace>/<package>.json`,
 * multi-line texts as arrays of lines), written directly: `encodeSnapshot` is not part of the public
 * API. Modelled on test/helpers/served-folder.ts: 20 lines of text, three variables.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const WORKSPACE = 'bench';

export const packageOf = (index) => `prompt-${String(index).padStart(5, '0')}`;
export const nameOf = (index) => `@${WORKSPACE}/${packageOf(index)}`;

/** The prompt object as the service returns it; `revision` changes its text and version. */
export function benchPrompt(index, revision = 1) {
  const pkg = packageOf(index);
  const lines = Array.from(
    { length: 20 },
    (_, line) => `Line ${line} of ${pkg}, revision ${revision}: {{name_${line % 3}}} says \`hi\` ${'x'.repeat(40)}`,
  );
  return {
    id: `pmt_${WORKSPACE}_${index}`,
    title: `Prompt ${index}`,
    description: null,
    category: 'bench',
    tags: ['bench'],
    version: `v${revision}`,
    workspaceSlug: WORKSPACE,
    packageName: `@${WORKSPACE}/${pkg}:v${revision}`,
    systemPrompt: `System for {{name_0:string // who}} r${revision}`,
    content: lines,
    context: [],
    metadata: { createdAt: 1_700_000_000_000 + index },
  };
}

/** Writes `count` prompts under `dir` and returns `dir`. */
export function writeServedFolder(dir, count, revision = 1) {
  mkdirSync(path.join(dir, WORKSPACE), { recursive: true });
  for (let i = 0; i < count; i++) {
    writeFileSync(path.join(dir, WORKSPACE, `${packageOf(i)}.json`), `${JSON.stringify(benchPrompt(i, revision), null, 2)}\n`);
  }
  return dir;
}

/** A project folder with a `prompts.config.json`; returns its path. */
export function writeProject(dir, config) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'prompts.config.json'), `${JSON.stringify(config, null, 2)}\n`);
  return dir;
}
