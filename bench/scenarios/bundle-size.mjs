/**
 * Bundle size: an app bundled and minified with esbuild that imports 1 prompt of a
 * 1,000-prompt module. Goal: the bundle is at most that prompt's text plus 2 KB.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { generatedModule, readSnapshot, SHAPES } from '../lib/generated-module.mjs';

const PROMPTS = 1_000;
const PICK = 500;
const ALLOWANCE = 2048;

export async function run({ log = () => {} } = {}) {
  const work = mkdtempSync(path.join(tmpdir(), 'promptlock-bench-bundle-'));
  try {
    const { outputPath, snapshotsDir } = await generatedModule(work, PROMPTS);
    const entry = path.join(work, 'app.ts');
    const fn = SHAPES.short.functionName(PICK);
    writeFileSync(
      entry,
      `import { ${fn} } from './src/generated/prompts.js';\n` +
        `console.log(${fn}({ customer_name: 'Ada', count: 3, topics: ['a'], language: 'en' }).content);\n`,
    );
    const result = await build({
      entryPoints: [entry],
      bundle: true,
      minify: true,
      format: 'esm',
      platform: 'neutral',
      write: false,
      logLevel: 'silent',
    });
    const bundle = result.outputFiles[0].contents.length;
    const snapshot = readSnapshot(snapshotsDir, PICK);
    const text = ['content', 'systemPrompt', 'critiquePrompt'].reduce(
      (sum, key) => sum + Buffer.byteLength(snapshot[key] ?? '', 'utf8'),
      0,
    );
    const full = (
      await build({
        entryPoints: [outputPath],
        bundle: true,
        minify: true,
        format: 'esm',
        platform: 'neutral',
        write: false,
        logLevel: 'silent',
      })
    ).outputFiles[0].contents.length;
    log(`bundle: ${bundle} B for one prompt (text ${text} B); whole module minified ${full} B`);
    return [
      {
        scenario: `bundle size (esbuild, 1 of ${PROMPTS.toLocaleString('en-US')} prompts)`,
        figure: 'app bundle, minified',
        value: bundle,
        unit: 'B',
        baseline: text,
        baselineLabel: "the prompt's text",
        ratio: bundle - text,
        ratioLabel: 'B over the text',
        goal: `≤ text + ${ALLOWANCE} B`,
        met: bundle <= text + ALLOWANCE,
        note: `all ${PROMPTS.toLocaleString('en-US')} prompts would be ${full.toLocaleString('en-US')} B; the rest is tree-shaken`,
      },
    ];
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
