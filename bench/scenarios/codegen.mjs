/**
 * Codegen: `promptlock generate` of 10,000 prompts and the up-to-date no-op, with a
 * `prompts.config.ts`; wall time of the built CLI with process start and config loading included. The measuring is the colleague's
 * bench/codegen.mjs (its `run()`); this file only turns its rows into the shared table's shape.
 */
import { run as runCodegen } from '../codegen.mjs';

export async function run({ runs = 3, log = () => {} } = {}) {
  const rows = runCodegen({ sizes: [10_000], runs });
  const cliStart = rows.find((r) => r.name.includes('--version'));
  const nodeStart = rows.find((r) => r.name.includes('node -e'));
  log(`codegen: node start ${(nodeStart.seconds * 1000).toFixed(0)} ms, promptlock --version ${(cliStart.seconds * 1000).toFixed(0)} ms`);
  return rows
    .filter((r) => r.prompts > 0)
    .map((r) => ({
      scenario: 'codegen (built CLI, prompts.config.ts, process start included)',
      figure: r.name,
      value: r.seconds * 1000,
      unit: 'ms',
      baseline: cliStart.seconds * 1000,
      baselineLabel: 'promptlock --version (CLI start)',
      ratio: r.seconds / cliStart.seconds,
      ratioLabel: '× CLI start',
      goal: `≤ ${r.goal * 1000} ms`,
      met: r.met,
      note: `median of ${runs}; node -e "" takes ${(nodeStart.seconds * 1000).toFixed(0)} ms; ${(r.overCli * 1000).toFixed(0)} ms beyond CLI start`,
    }));
}
