/**
 * Render speed: the generated functions against `mustache.render` (what Langfuse's
 * `compile` uses) on the same templates, in two shapes: short 3-line prompts with 4 variables and
 * 20-line prompts with 3. Both get the same string values (Langfuse's compile takes strings);
 * mustache gets `{{{name}}}` (no HTML escaping), renders content and systemPrompt as the generated
 * function does, and its template cache is warm, as in a long-running app. Outputs are checked
 * equal.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Mustache from 'mustache';
import { generatedModule, importModule, readSnapshot, SHAPES } from '../lib/generated-module.mjs';
import { median } from '../lib/stats.mjs';

const PROMPTS = 100;
const SLICE_MS = 300;
/** Measured here: the 100 generated functions keep getting faster for ~10 slices, mustache for ~2. */
const WARM_UP_SLICES = 12;
const MEASURED_SLICES = 5;

/** `{{name:type // description}}` → `{{{name}}}`. */
const toMustache = (text) => (text ?? '').replace(/\{\{\s*([A-Za-z_][\w.-]*)[^}]*\}\}/g, '{{{$1}}}');

const asStrings = (variables) =>
  Object.fromEntries(Object.entries(variables).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));

const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/**
 * Calls `step(i)` in batches until `SLICE_MS` of this process's CPU time have passed; returns
 * operations per CPU second. CPU time, not wall time: on a shared machine the process is often
 * descheduled, and that time is no one's rendering.
 */
function opsPerSecond(step) {
  let ops = 0;
  const start = cpuMs();
  let elapsed = 0;
  while (elapsed < SLICE_MS) {
    for (let i = 0; i < 1000; i++) step(ops + i);
    ops += 1000;
    elapsed = cpuMs() - start;
  }
  return (ops * 1000) / elapsed;
}

/**
 * Alternating slices of each contender, so machine noise hits both alike; medians. The warm-up is
 * long because each of the 100 generated functions is its own JIT target that gets 1% of the calls
 * (compiled on background threads, whose CPU time would otherwise land in the measured slices):
 * the figures are for a long-running app, mustache's template cache being warm too.
 */
function race(contenders, slices) {
  for (const step of Object.values(contenders)) for (let i = 0; i < WARM_UP_SLICES; i++) opsPerSecond(step);
  const rates = Object.fromEntries(Object.keys(contenders).map((k) => [k, []]));
  for (let r = 0; r < slices; r++) for (const [k, step] of Object.entries(contenders)) rates[k].push(opsPerSecond(step));
  return Object.fromEntries(Object.entries(rates).map(([k, v]) => [k, median(v)]));
}

async function shapeRows(shape, dir, log) {
  const { outputPath, snapshotsDir } = await generatedModule(dir, PROMPTS, shape);
  const module = await importModule(outputPath);
  const { functionName, variables } = SHAPES[shape];
  const text = asStrings(variables);
  const fns = Array.from({ length: PROMPTS }, (_, i) => module[functionName(i)]);
  const templates = Array.from({ length: PROMPTS }, (_, i) => {
    const snapshot = readSnapshot(snapshotsDir, i, shape);
    return { content: toMustache(snapshot.content), systemPrompt: toMustache(snapshot.systemPrompt) };
  });
  for (const i of [0, 7, PROMPTS - 1]) {
    const ours = fns[i](text);
    if (
      ours.content !== Mustache.render(templates[i].content, text) ||
      ours.systemPrompt !== Mustache.render(templates[i].systemPrompt, text)
    ) {
      throw new Error(`render speed (${shape}): the generated function and mustache disagree on prompt ${i}`);
    }
  }
  let sink = 0;
  const rates = race(
    {
      generated: (i) => {
        sink += fns[i % PROMPTS](text).content.length;
      },
      mustache: (i) => {
        const t = templates[i % PROMPTS];
        sink += Mustache.render(t.content, text).length + Mustache.render(t.systemPrompt, text).length;
      },
    },
    MEASURED_SLICES,
  );
  if (sink === 0) throw new Error('nothing rendered');
  log(`render ${shape}: generated ${Math.round(rates.generated)} ops/s, mustache ${Math.round(rates.mustache)} ops/s`);
  const vars = Object.keys(variables).length;
  const scenario = `render speed (${PROMPTS} ${shape} prompts, ${vars} variables)`;
  const note = `median of ${MEASURED_SLICES} alternating slices of ${SLICE_MS} ms CPU time after ${WARM_UP_SLICES} warm-up slices each; same string values; outputs checked equal`;
  return [
    {
      scenario,
      figure: 'generated function',
      value: rates.generated,
      unit: 'ops/s',
      baseline: rates.mustache,
      baselineLabel: 'mustache.render, content + systemPrompt',
      ratio: rates.generated / rates.mustache,
      ratioLabel: '× faster',
      goal: 'not slower (≥ 1×)',
      met: rates.generated / rates.mustache >= 1,
      note,
    },
  ];
}

export async function run({ log = () => {} } = {}) {
  const work = mkdtempSync(path.join(tmpdir(), 'promptlock-bench-render-'));
  try {
    return [...(await shapeRows('short', path.join(work, 'short'), log)), ...(await shapeRows('long', path.join(work, 'long'), log))];
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
