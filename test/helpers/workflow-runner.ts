/**
 * Runs a GitHub Actions job's own `run:` steps, as written in the workflow file, the way the
 * runner does: each script with `bash --noprofile --norc -eo pipefail`, its `env:` and `if:`
 * expressions evaluated, step outputs read from a fresh `GITHUB_OUTPUT` file per step. `uses:`
 * steps are the test's to stand in for (a `git clone` is the checkout, this Node.js the
 * setup-node).
 */
import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { load as loadYaml } from 'js-yaml';

interface WorkflowStep {
  name?: string;
  id?: string;
  if?: string;
  run?: string;
  uses?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
}

export interface Workflow {
  on: Record<string, unknown>;
  permissions?: Record<string, string>;
  jobs: Record<string, { if?: string; 'timeout-minutes'?: number; permissions?: Record<string, string>; steps: WorkflowStep[] }>;
}

export function parseWorkflow(text: string): Workflow {
  return loadYaml(text) as Workflow;
}

interface StepRun {
  step: WorkflowStep;
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface JobRun {
  runs: StepRun[];
  /** `steps.<id>.outputs.<name>`, as later steps see them. */
  outputs: Record<string, Record<string, string>>;
}

/** The outputs a step wrote to `GITHUB_OUTPUT` (`name<<delimiter` blocks and `name=value` lines). */
function readOutputs(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const block = /^([\w-]+)<<(.+)$/.exec(lines[i]!);
    if (block) {
      const end = lines.indexOf(block[2]!, i + 1);
      out[block[1]!] = lines.slice(i + 1, end).join('\n');
      i = end;
    } else if (lines[i]!.includes('=')) {
      const at = lines[i]!.indexOf('=');
      out[lines[i]!.slice(0, at)] = lines[i]!.slice(at + 1);
    }
  }
  return out;
}

/**
 * The value of one `${{ … }}` expression, in the subset the promptlock templates use: context
 * names (`secrets.X`, `github.token`, `steps.sync.outputs.changed`), `'literals'`, `a == 'b'` and
 * `a || b`. A missing secret or step output is empty, as on GitHub; any other unknown name fails.
 */
function evaluate(expression: string, contexts: Record<string, string>): string {
  const term = (text: string): string => {
    const equal = /^(.+?)\s*==\s*'([^']*)'$/.exec(text);
    if (equal) return term(equal[1]!.trim()) === equal[2] ? 'true' : '';
    if (/^'[^']*'$/.test(text)) return text.slice(1, -1);
    if (text in contexts) return contexts[text]!;
    if (/^(secrets|steps)\./.test(text)) return '';
    throw new Error(`The workflow uses \${{ ${text} }}, which this runner was not given.`);
  };
  for (const part of expression.split('||')) {
    const value = term(part.trim());
    if (value !== '') return value;
  }
  return '';
}

function substitute(text: string, contexts: Record<string, string>): string {
  return text.replace(/\$\{\{\s*(.+?)\s*\}\}/g, (_m, expression: string) => evaluate(expression, contexts));
}

function runScript(script: string, cwd: string, env: NodeJS.ProcessEnv): Promise<Omit<StepRun, 'step'>> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const timer = setTimeout(() => child.pid && process.kill(child.pid, 'SIGKILL'), 90_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

export interface RunJobOptions {
  cwd: string;
  /** The runner's environment (`RUNNER_TEMP`, `GITHUB_WORKSPACE`…), beneath each step's own `env:`. */
  env: NodeJS.ProcessEnv;
  /** Values of the expression contexts: `secrets.PROMPTLOCK_API_KEY`, `github.token`, `runner.temp`… */
  contexts: Record<string, string>;
  /** Ids of steps not run (one that needs GitHub's API, say). */
  skip?: readonly string[];
  /** Only the steps of these ids. */
  only?: readonly string[];
}

/** Runs the job's `run:` steps in order until one fails, as the runner would. */
export async function runJob(workflow: Workflow, job: string, options: RunJobOptions): Promise<JobRun> {
  const result: JobRun = { runs: [], outputs: {} };
  const contexts = () => {
    const all = { ...options.contexts };
    for (const [id, outputs] of Object.entries(result.outputs))
      for (const [name, value] of Object.entries(outputs)) all[`steps.${id}.outputs.${name}`] = value;
    return all;
  };
  const temp = options.contexts['runner.temp'] ?? options.cwd;
  for (const [index, step] of workflow.jobs[job]!.steps.entries()) {
    if (step.run === undefined || (step.id !== undefined && options.skip?.includes(step.id))) continue;
    if (options.only && !(step.id !== undefined && options.only.includes(step.id))) continue;
    if (step.if !== undefined && evaluate(step.if, contexts()) === '') continue;
    const outputFile = path.join(temp, `${job}-${index}-${Date.now()}.output`);
    await writeFile(outputFile, '');
    const stepEnv = Object.fromEntries(Object.entries(step.env ?? {}).map(([key, value]) => [key, substitute(String(value), contexts())]));
    const run = await runScript(substitute(step.run, contexts()), options.cwd, { ...options.env, GITHUB_OUTPUT: outputFile, ...stepEnv });
    result.runs.push({ step, ...run });
    if (step.id !== undefined) result.outputs[step.id] = readOutputs(await readFile(outputFile, 'utf8'));
    if (run.code !== 0) break;
  }
  return result;
}
