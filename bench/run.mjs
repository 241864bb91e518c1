#!/usr/bin/env node
/**
 * `npm run bench` (after the build): the performance guards (docs/performance.md) against the
 * built dist/, each figure next to a baseline measured in the same run, medians of a few runs.
 * Prints a table (figure, baseline, ratio, guard, met?) and writes
 * bench/results/latest.json. Everything runs on 127.0.0.1; every service and CLI process started
 * is stopped by its PID before the scenario returns.
 *
 *   node bench/run.mjs                      all scenarios, BENCH_RUNS (default 3) runs each
 *   node bench/run.mjs cold-sync watch-latency   only these
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatValue } from './lib/stats.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SCENARIOS = ['warm-sync', 'rate-limited-sync', 'cold-sync', 'codegen', 'watch-latency', 'memory', 'bundle-size', 'render-speed'];

function loadLine() {
  return loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
}

function ratioText(row) {
  if (row.ratio === undefined || row.ratio === null || Number.isNaN(row.ratio)) return '';
  const value = Math.abs(row.ratio) >= 100 ? Math.round(row.ratio).toLocaleString('en-US') : row.ratio.toFixed(2);
  return `${value} ${row.ratioLabel ?? ''}`.trim();
}

function table(rows) {
  const header = ['scenario', 'figure', 'value', 'baseline', 'ratio', 'guard', 'met?'];
  const cells = rows.map((row) => [
    row.scenario,
    row.figure,
    formatValue(row.value, row.unit),
    row.baseline === undefined ? '' : `${formatValue(row.baseline, row.unit)} (${row.baselineLabel})`,
    ratioText(row),
    row.goal ?? '',
    row.met === undefined ? '' : row.met ? 'met' : 'MISSED',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (c) =>
    c
      .map((cell, i) => cell.padEnd(widths[i]))
      .join(' | ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('-|-'), ...cells.map(line)].join('\n');
}

async function main() {
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter((name) => !SCENARIOS.includes(name));
  if (unknown.length > 0) throw new Error(`Unknown scenario ${unknown.join(', ')}; known: ${SCENARIOS.join(', ')}`);
  const names = wanted.length > 0 ? wanted : SCENARIOS;
  const runs = Number(process.env.BENCH_RUNS) || 3;
  const started = performance.now();
  const machine = { node: process.version, cpus: availableParallelism(), cpuModel: cpus()[0]?.model, loadAverageAtStart: loadavg() };
  console.log(
    `promptlock bench: ${names.length} scenarios, ${runs} runs each; node ${process.version}, ${machine.cpus} CPUs; load average at start ${loadLine()}`,
  );

  const rows = [];
  const timings = {};
  for (const name of names) {
    const t = performance.now();
    console.log(`\n== ${name} (load average ${loadLine()})`);
    const { run } = await import(`./scenarios/${name}.mjs`);
    try {
      rows.push(...(await run({ runs, log: (message) => console.log(`   ${message}`) })));
    } catch (error) {
      // One broken scenario must not cost the figures of the others; it shows as a failed row.
      console.error(`   ${name} failed: ${error?.stack ?? error}`);
      rows.push({
        scenario: name,
        figure: 'scenario failed',
        value: undefined,
        unit: '',
        goal: 'completes',
        met: false,
        note: String(error?.message ?? error),
      });
      process.exitCode = 1;
    }
    timings[name] = Math.round(performance.now() - t);
    console.log(`   done in ${(timings[name] / 1000).toFixed(1)} s`);
  }

  const totalMs = Math.round(performance.now() - started);
  console.log(`\n${table(rows)}\n`);
  for (const row of rows.filter((r) => r.note)) console.log(`- ${row.scenario} / ${row.figure}: ${row.note}`);
  const missed = rows.filter((r) => r.met === false);
  console.log(
    `\n${rows.filter((r) => r.met === true).length} guards met, ${missed.length} missed${missed.length ? `: ${missed.map((r) => `${r.scenario} / ${r.figure}`).join('; ')}` : ''}.`,
  );
  console.log(`Total ${(totalMs / 1000).toFixed(1)} s; load average at end ${loadLine()}.`);

  const dir = path.join(ROOT, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'latest.json');
  writeFileSync(
    file,
    `${JSON.stringify({ date: new Date().toISOString(), runs, machine: { ...machine, loadAverageAtEnd: loadavg() }, totalMs, scenarioMs: timings, rows }, null, 2)}\n`,
  );
  console.log(`Results: ${path.relative(process.cwd(), file)}`);
}

// jiti keeps transpiled configs in the user's private cache folder (docs/security.md): a temporary
// one for the run, inherited by every CLI the scenarios start, removed at the end.
const cacheHome = mkdtempSync(path.join(tmpdir(), 'promptlock-bench-cache-'));
process.env.XDG_CACHE_HOME = cacheHome;
main()
  .catch((error) => {
    console.error(error?.stack ?? String(error));
    process.exitCode = 1;
  })
  .finally(() => rmSync(cacheHome, { recursive: true, force: true }));
