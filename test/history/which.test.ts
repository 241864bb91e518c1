/**
 * `promptlock which` in a real git repository whose prompts were updated twice, as teams merge the
 * update job's pull requests: a first lock committed by hand; update 1 committed on the update
 * branch as the workflow does (title and `sync --report` body) and merged with a merge commit;
 * update 2 squashed on GitHub with the pull request's title and description. Each sync runs in
 * this process against the real local service.
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server/index.js';
import { LOCAL_TEST_KEY } from '../../src/server/index.js';
import { runCliInProcess } from '../helpers/cli.js';
import { disposables } from '../helpers/disposables.js';
import { gitOk } from '../helpers/git.js';
import { copyDir, removeDir } from '../helpers/project.js';
import { publish } from '../live/helpers.js';

const use = disposables();
let authored: string;
let server: RunningServer;
let project: string;
const env = () => ({ PROMPTLOCK_API_KEY: LOCAL_TEST_KEY, PROMPTLOCK_BASE_URL: server.url });
const which = (...args: string[]) => runCliInProcess(['which', ...args], { cwd: project, env: env() });

/** The integrity the working tree's lockfile records for `name`. */
async function locked(name: string): Promise<string> {
  const lockfile = JSON.parse(await readFile(path.join(project, 'prompts.lock.json'), 'utf8'));
  return lockfile.prompts[name].integrity;
}

/** `promptlock sync --report`; the report's text. */
async function syncWithReport(): Promise<string> {
  const report = path.join(project, '..', `${path.basename(project)}-report.md`);
  const run = await runCliInProcess(['sync', '--report', report], { cwd: project, env: env() });
  expect(run.code, run.stderr).toBe(0);
  return readFile(report, 'utf8');
}

const integrities: Record<string, string> = {};
const reports: string[] = [];
const commits: Record<string, string> = {};

beforeAll(async () => {
  authored = await use.folder({});
  await publish(authored, '@acme/support-reply', 'v1', 'Hello {{customer_name}}.');
  await publish(authored, '@acme/note', 'draft', 'A first draft.');
  await publish(authored, '@acme/welcome', 'v1', 'Welcome!');
  await publish(authored, '@beta/welcome', 'v1', 'Welcome to beta!');
  server = await use.serve({ dir: authored });
  project = await use.project({ prompts: ['@acme/support-reply', '@acme/note:draft', '@acme/welcome', '@beta/welcome'] });
  gitOk(project, 'init', '--quiet', '--initial-branch', 'main');

  // The first lock, committed by hand: a message with no pull request body.
  const first = await runCliInProcess(['sync'], { cwd: project, env: env() });
  expect(first.code, first.stderr).toBe(0);
  integrities.v1 = await locked('@acme/support-reply');
  integrities.draftA = await locked('@acme/note');
  gitOk(project, 'add', '--all');
  gitOk(project, 'commit', '--quiet', '--message', 'Lock the prompts');
  commits.first = gitOk(project, 'rev-parse', 'HEAD').trim();

  // Update 1, as the update job commits it (templates/ci/github.yml), merged with a merge commit.
  await publish(authored, '@acme/support-reply', 'v2', 'Hello {{customer_name}}, thanks for writing.');
  await publish(authored, '@acme/note', 'draft', 'A second draft.');
  await server.reload();
  gitOk(project, 'switch', '--quiet', '--create', 'promptlock/prompt-updates');
  reports.push(await syncWithReport());
  integrities.v2 = await locked('@acme/support-reply');
  const message = path.join(project, '..', `${path.basename(project)}-message.txt`);
  await writeFile(message, `Update 2 prompts\n\n${reports[0]}`);
  gitOk(project, 'add', '--all');
  gitOk(project, 'commit', '--quiet', '--no-verify', '--cleanup=verbatim', '--file', message);
  commits.update1 = gitOk(project, 'rev-parse', 'HEAD').trim();
  gitOk(project, 'switch', '--quiet', 'main');
  gitOk(
    project,
    'merge',
    '--quiet',
    '--no-ff',
    '--message',
    'Merge pull request #1 from acme/promptlock/prompt-updates',
    'promptlock/prompt-updates',
  );

  // Update 2, squashed on GitHub: its title and number, then the pull request's description.
  await publish(authored, '@acme/support-reply', 'v3', 'Hi {{customer_name}}.');
  await server.reload();
  reports.push(await syncWithReport());
  integrities.v3 = await locked('@acme/support-reply');
  await writeFile(message, `Update \`@acme/support-reply\` to v3 (#2)\n\n${reports[1]}`);
  gitOk(project, 'add', '--all');
  gitOk(project, 'commit', '--quiet', '--cleanup=verbatim', '--file', message);
  commits.update2 = gitOk(project, 'rev-parse', 'HEAD').trim();
}, 60_000);

describe('promptlock which', () => {
  it('names the commit that locked a text and the one that replaced it, with the pull request body (merge commit)', async () => {
    const run = await which(integrities.v2!, '--json');
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result).toMatchObject({
      integrity: integrities.v2,
      name: '@acme/support-reply',
      version: 'v2',
      lockfile: 'prompts.lock.json',
      atHead: false,
    });
    expect(result.commits.map((c: any) => [c.commit, c.change])).toEqual([
      [commits.update1, 'locked'],
      [commits.update2, 'released'],
    ]);
    expect(result.commits[0].subject).toBe('Update 2 prompts');
    expect(result.commits[0].pullRequestBody).toBe(reports[0]);
    expect(result.commits[1].pullRequestBody).toBeUndefined();
  });

  it('finds a text by the name and version a trace carries, and shows the squashed pull request’s description', async () => {
    const run = await which('@acme/support-reply@v3');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`${integrities.v3} is the reviewed text of @acme/support-reply v3 (prompts.lock.json):`);
    expect(run.stdout).toMatch(
      new RegExp(`locked +${commits.update2!.slice(0, 12)} \\d{4}-\\d\\d-\\d\\d Update \`@acme/support-reply\` to v3 \\(#2\\) \\(Test\\)`),
    );
    expect(run.stdout).toContain('HEAD still locks it.');
    expect(run.stdout).toContain(reports[1]!.trimEnd());
    expect(reports[1]).toContain('## Update `@acme/support-reply` to v3');
    // `name:version` and a bare slug name the same text.
    const same = await which('support-reply:v3', '--json');
    expect(JSON.parse(same.stdout).integrity).toBe(integrities.v3);
  });

  it('says when the commit that locked a text carries no pull request body', async () => {
    const run = await which('@acme/support-reply@v1');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`locked +${commits.first!.slice(0, 12)} .* Lock the prompts \\(Test\\)`));
    expect(run.stdout).toMatch(new RegExp(`released ${commits.update1!.slice(0, 12)} `));
    expect(run.stdout).toContain(`The message of ${commits.first!.slice(0, 12)} carries no pull request body`);
  });

  it('refuses an ambiguous question: a draft locked with two texts, a slug of two workspaces', async () => {
    const draft = await which('@acme/note@v0');
    expect(draft.code).toBe(2);
    expect(draft.stderr).toContain('@acme/note@v0 is ambiguous: the lockfile has locked 2 different texts under it:');
    expect(draft.stderr).toContain(integrities.draftA!);
    expect(draft.stderr).toContain('Ask by integrity');
    const slug = await which('welcome@v1');
    expect(slug.code).toBe(2);
    expect(slug.stderr).toContain('welcome@v1 is ambiguous: the lockfile has locked @acme/welcome and @beta/welcome at v1.');
  });

  it('says when nothing is found, when the question names nothing, and outside a git repository', async () => {
    const unknown = `sha256-${'A'.repeat(43)}=`;
    const none = await which(unknown);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain(`No commit of prompts.lock.json locks ${unknown}.`);
    const noVersion = await which('@acme/support-reply@v9');
    expect(noVersion.code).toBe(1);
    expect(noVersion.stderr).toContain('No commit of prompts.lock.json locks @acme/support-reply@v9.');
    const bad = await which('sha256-short');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('"sha256-short" is not an integrity');
    const nameOnly = await which('@acme/support-reply');
    expect(nameOnly.code).toBe(2);
    expect(nameOnly.stderr).toContain('names no prompt version');

    const outside = await mkdtemp(path.join(tmpdir(), 'promptlock-which-nogit-'));
    use.defer(() => removeDir(outside));
    await copyDir(project, outside);
    await removeDir(path.join(outside, '.git'));
    const run = await runCliInProcess(['which', integrities.v1!], { cwd: outside, env: env() });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('is not in a git repository: `promptlock which` reads the history of the lockfile in git.');
  });
});
