/**
 * Process start → first request, reported, not a goal: the built CLI's `sync` in a project whose
 * `prompts.config.ts` points at a loopback probe, in two configs: as `promptlock init` writes it
 * and with TypeScript syntax, both loaded by cosmiconfig and jiti (jiti's transpiled code cached
 * in the user's private cache folder, a temporary one for the run: bench/run.mjs), against
 * `node -e 0` (the floor: starting Node itself). CPU time is given too: a loaded box inflates wall
 * time far more than CPU time.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { firstRequestProbe } from '../lib/first-request.mjs';
import { median } from '../lib/stats.mjs';

function project(dir, file, text) {
  mkdirSync(path.join(dir, 'node_modules'), { recursive: true });
  writeFileSync(path.join(dir, 'package.json'), '{ "name": "bench-app", "private": true, "type": "module" }\n');
  writeFileSync(path.join(dir, file), text);
  return dir;
}

/** `{ ms, cpuMs }` of starting Node: wall time to its exit, and the CPU it reports having used (bootstrap included). */
async function nodeFloor() {
  const start = performance.now();
  let out = '';
  await new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['-e', 'const u = process.cpuUsage(); process.stdout.write(String((u.user + u.system) / 1000))'],
      {
        stdio: ['ignore', 'pipe', 'ignore'],
      },
    );
    child.stdout.setEncoding('utf8').on('data', (chunk) => (out += chunk));
    child.once('exit', resolve).once('error', reject);
  });
  return { ms: performance.now() - start, cpuMs: Number(out) };
}

export async function run({ runs = 3, log = () => {} } = {}) {
  const work = mkdtempSync(path.join(tmpdir(), 'promptlock-bench-startup-'));
  const probe = await firstRequestProbe();
  try {
    const plain = project(
      path.join(work, 'plain'),
      'prompts.config.ts',
      `import { defineConfig } from 'promptlock';\n\nexport default defineConfig({\n  baseUrl: '${probe.url}',\n  prompts: ['@bench/prompt-00000'],\n});\n`,
    );
    const typed = project(
      path.join(work, 'typed'),
      'prompts.config.ts',
      `import { defineConfig } from 'promptlock';\n\nconst prompts: string[] = ['@bench/prompt-00000'];\n\nexport default defineConfig({\n  baseUrl: '${probe.url}',\n  prompts,\n});\n`,
    );
    // One run of each first, not counted: the file cache warm, and jiti's cache filled (what
    // every later run, as on a developer's machine, finds in its cache folder).
    await probe.time(plain, ['sync']);
    await probe.time(typed, ['sync']);
    const samples = Math.max(5, runs * 3);
    const measure = async (dir) => {
      const all = [];
      for (let i = 0; i < samples; i++) all.push(await probe.time(dir, ['sync']));
      return { ms: median(all.map((s) => s.ms)), cpuMs: median(all.map((s) => s.cpuMs)) };
    };
    const floors = [];
    for (let i = 0; i < samples; i++) floors.push(await nodeFloor());
    const floor = median(floors.map((f) => f.ms));
    const floorCpu = Math.round(median(floors.map((f) => f.cpuMs)));
    const plainRun = await measure(plain);
    const typedRun = await measure(typed);
    log(
      `node -e 0: ${Math.round(floor)} ms (${floorCpu} ms CPU); init-style config: ${Math.round(plainRun.ms)} ms (${plainRun.cpuMs} ms CPU); TypeScript config: ${Math.round(typedRun.ms)} ms (${typedRun.cpuMs} ms CPU)`,
    );
    const row = (figure, measured) => ({
      scenario: `start (${samples} runs, median)`,
      figure,
      value: measured.ms,
      unit: 'ms',
      baseline: floor,
      baselineLabel: 'node -e 0',
      ratio: measured.ms / floor,
      ratioLabel: '× starting Node',
      goal: 'reported',
      met: undefined,
      note: `${measured.cpuMs} ms of CPU until the first request (starting Node: ${floorCpu} ms)`,
    });
    return [
      row('process start → first request, init-style prompts.config.ts', plainRun),
      row('process start → first request, prompts.config.ts with types', typedRun),
    ];
  } finally {
    await probe.close();
    rmSync(work, { recursive: true, force: true });
  }
}
