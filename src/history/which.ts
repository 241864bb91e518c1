/**
 * `promptlock which <integrity | name@version>`: from a trace back to the review (docs/traces.md).
 * The lockfile's history in git says which commits locked a text (`git log -S` on its integrity:
 * the commits where the lockfile starts or stops holding it) and which prompt and version it is;
 * the message of the commit that locked it carries the pull request's body when the update job
 * made it from `sync --report` (the workflow commits the title and the report), or when the pull
 * request was squashed with its description. Reads only: git log and git cat-file, bounded.
 */
import path from 'node:path';
import { ConfigError, PromptlockError } from '../errors.js';
import { isSlug, parsePackageName } from '../package-name.js';
import { REPORT_OPENING } from '../sync/pull-request-report.js';
import { oneLine } from '../terminal-text.js';
import { git, readBlobs } from './git.js';

/** Most commits of the lockfile's history read for one question. */
const MAX_COMMITS = 200;

const INTEGRITY = /^sha256-[A-Za-z0-9+/]{43}=$/;

/** One commit where the lockfile started (`locked`) or stopped (`released`) holding the text. */
interface WhichCommit {
  commit: string;
  /** Author date, ISO 8601. */
  date: string;
  author: string;
  subject: string;
  change: 'locked' | 'released';
  /** The pull request's body that `sync --report` wrote, when the commit message carries it. */
  pullRequestBody?: string;
}

export interface WhichResult {
  integrity: string;
  /** The prompt and version whose reviewed text it is, as the lockfile that locked it says. */
  name: string;
  version: string;
  /** The lockfile, relative to the repository's top folder. */
  lockfile: string;
  /** Oldest first. */
  commits: WhichCommit[];
  /** Whether the lockfile of HEAD still holds it. */
  atHead: boolean;
}

type Query = { integrity: string } | { name: string; version: string };

/** `sha256-…`, or `@ws/pkg@vN` (also `@ws/pkg:vN`, `pkg@vN`): what a trace's attributes give. */
function parseQuery(text: string): Query {
  const query = text.trim();
  if (query.startsWith('sha256-')) {
    if (INTEGRITY.test(query)) return { integrity: query };
    throw new ConfigError(`${JSON.stringify(query)} is not an integrity: one is "sha256-" followed by 44 base64 characters.`, {
      hint: 'Copy it whole from the trace attribute promptlock.prompt.integrity (or the lockfile).',
    });
  }
  const match = /^(.+?)[@:](v\d+)$/.exec(query);
  const name = match?.[1] ?? '';
  const parsed = name.startsWith('@') ? parsePackageName(name) : undefined;
  if (match === null || !(parsed ? parsed.selector === undefined : isSlug(name))) {
    throw new ConfigError(`${JSON.stringify(query)} names no prompt version: ask for an integrity or a name with its version.`, {
      hint: 'For example `promptlock which sha256-…`, `promptlock which @acme/support-reply@v4` (the trace attributes gen_ai.prompt.name and gen_ai.prompt.version).',
    });
  }
  return { name, version: match[2]! };
}

/** The lockfile's prompts, leniently: a lockfile of any age or shape, or nothing for one that is not JSON. */
function lockedPrompts(content: Buffer): Array<{ name: string; version: unknown; integrity: unknown }> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(content.toString('utf8'));
  } catch {
    return [];
  }
  const prompts = (parsed as { prompts?: unknown } | null)?.prompts;
  if (prompts === null || typeof prompts !== 'object') return [];
  return Object.entries(prompts as Record<string, { version?: unknown; integrity?: unknown } | null>).map(([name, entry]) => ({
    name,
    version: entry?.version,
    integrity: entry?.integrity,
  }));
}

interface Repository {
  /** The repository's top folder: every git command runs there. */
  top: string;
  /** The lockfile, relative to it, as git names paths. */
  lockfile: string;
}

async function repositoryOf(lockfilePath: string): Promise<Repository> {
  const dir = path.dirname(lockfilePath);
  let out: string;
  try {
    out = await git(dir, ['rev-parse', '--show-toplevel', '--show-prefix']);
  } catch (error) {
    if (error instanceof PromptlockError) throw error;
    const said = (error as { stderr?: string }).stderr ?? '';
    if (!/not a git repository/i.test(said))
      throw new PromptlockError(`git cannot read the repository of ${dir}: ${oneLine(said.trim())}`, { cause: error });
    throw new PromptlockError(`${dir} is not in a git repository: \`promptlock which\` reads the history of the lockfile in git.`, {
      hint: 'Run it in a clone of the app’s repository, where the lockfile is committed.',
      cause: error,
    });
  }
  const [top = '', prefix = ''] = out.split('\n');
  return { top, lockfile: `${prefix}${path.basename(lockfilePath)}` };
}

/** `:(top,literal)path`: the lockfile whatever characters its name has, from the top folder. */
const pathspec = (repo: Repository) => `:(top,literal)${repo.lockfile}`;

async function nothingFound(repo: Repository, what: string): Promise<PromptlockError> {
  const shallow = (await git(repo.top, ['rev-parse', '--is-shallow-repository']).catch(() => '')).trim() === 'true';
  return new PromptlockError(`No commit of ${repo.lockfile} locks ${what}.`, {
    hint: shallow
      ? 'This clone is shallow: fetch the whole history (`git fetch --unshallow`) and ask again.'
      : 'Check that the trace comes from this app (its lockfile is the one asked), and that the commit is in the history of HEAD (fetch and check out the branch the app was built from).',
  });
}

/** The integrity of `name@version` in the lockfile's history; an error when none or several texts were locked under it. */
async function integrityOf(repo: Repository, name: string, version: string): Promise<string> {
  // Commits whose lockfile diff adds or removes a `"version": "vN"` line, and HEAD.
  const log = await git(repo.top, [
    'log',
    `--max-count=${MAX_COMMITS}`,
    '--format=%H',
    '--no-ext-diff',
    '--no-textconv',
    `-G"version": "${version}"`,
    '--',
    pathspec(repo),
  ]);
  const commits = ['HEAD', ...log.split('\n').filter(Boolean)];
  const matches = (candidate: string) => candidate === name || (!name.startsWith('@') && candidate.endsWith(`/${name}`));
  const found = new Map<string, { name: string; commit: string }>();
  const blobs = await readBlobs(
    repo.top,
    commits.map((commit) => `${commit}:${repo.lockfile}`),
    lockedPrompts,
  );
  blobs.forEach((prompts, i) => {
    for (const prompt of prompts ?? []) {
      if (matches(prompt.name) && prompt.version === version && typeof prompt.integrity === 'string' && !found.has(prompt.integrity)) {
        found.set(prompt.integrity, { name: prompt.name, commit: commits[i]! });
      }
    }
  });
  const names = new Set([...found.values()].map((hit) => hit.name));
  if (names.size > 1) {
    throw new PromptlockError(
      `${name}@${version} is ambiguous: the lockfile has locked ${[...names].sort().join(' and ')} at ${version}.`,
      {
        exitCode: 2,
        hint: `Ask with the full package name, e.g. \`promptlock which ${[...names].sort()[0]}@${version}\`.`,
      },
    );
  }
  if (found.size > 1) {
    const texts = [...found].map(([integrity, hit]) => `${integrity} (in ${hit.commit === 'HEAD' ? 'HEAD' : hit.commit.slice(0, 12)})`);
    throw new PromptlockError(
      `${name}@${version} is ambiguous: the lockfile has locked ${found.size} different texts under it: ${texts.join(', ')}.`,
      {
        exitCode: 2,
        hint: 'A draft (v0) changes without a new version. Ask by integrity: the trace attribute promptlock.prompt.integrity.',
      },
    );
  }
  const [only] = found.keys();
  if (only === undefined) throw await nothingFound(repo, `${name}@${version}`);
  return only;
}

/** Where the lockfile started and stopped holding `integrity`, with each commit's message. */
async function commitsOf(repo: Repository, integrity: string): Promise<Omit<WhichResult, 'lockfile'>> {
  // %x1f between fields, %x1e after each commit: neither can be in a name or a message git keeps.
  const log = await git(repo.top, [
    'log',
    `--max-count=${MAX_COMMITS}`,
    '--format=%H%x1f%aI%x1f%an%x1f%B%x1e',
    '--no-ext-diff',
    '--no-textconv',
    `-S${integrity}`,
    '--',
    pathspec(repo),
  ]);
  const records = log
    .split('\x1e')
    .map((record) => record.replace(/^\n/, ''))
    .filter(Boolean)
    .map((record) => {
      const [commit = '', date = '', author = '', message = ''] = record.split('\x1f');
      return { commit, date, author, message };
    })
    .reverse();
  if (records.length === 0) throw await nothingFound(repo, integrity);
  const holding = (content: Buffer) => lockedPrompts(content).find((prompt) => prompt.integrity === integrity);
  const held = await readBlobs(repo.top, [...records.map((r) => `${r.commit}:${repo.lockfile}`), `HEAD:${repo.lockfile}`], holding);
  const atHead = held.pop() !== undefined;
  const identity = held.find((entry) => entry !== undefined);
  const commits = records.map(({ commit, date, author, message }, i): WhichCommit => {
    const newline = message.indexOf('\n');
    const subject = (newline === -1 ? message : message.slice(0, newline)).trim();
    const body = newline === -1 ? '' : message.slice(newline + 1).trim();
    const change = held[i] !== undefined ? 'locked' : 'released';
    const out: WhichCommit = { commit, date, author, subject, change };
    if (change === 'locked' && body.includes(REPORT_OPENING)) out.pullRequestBody = `${body}\n`;
    return out;
  });
  return {
    integrity,
    name: identity?.name ?? '?',
    version: typeof identity?.version === 'string' ? identity.version : '?',
    commits,
    atHead,
  };
}

/**
 * The commits whose lockfile holds the text `query` names (its integrity, or a prompt and
 * version), oldest first, with the pull request's body of the one that locked it when it carries
 * one. Throws a `ConfigError` for a query that names nothing, and a `PromptlockError` outside a git
 * repository, when nothing is found, or (exit code 2) when a name and version are ambiguous.
 */
export async function whichCommits(queryText: string, options: { lockfilePath: string }): Promise<WhichResult> {
  const query = parseQuery(queryText);
  const repo = await repositoryOf(path.resolve(options.lockfilePath));
  const integrity = 'integrity' in query ? query.integrity : await integrityOf(repo, query.name, query.version);
  return { ...(await commitsOf(repo, integrity)), lockfile: repo.lockfile };
}
