/**
 * Where a `check` problem lives, for `check --format github`: the snapshot, the lockfile entry,
 * the config entry or the module, with a line when one can be named. Read from the files as they
 * are on disk; a file that cannot be read gives a location without a line.
 */
import path from 'node:path';
import type { ResolvedConfig } from '../config/types.js';
import { parsePackageName } from '../package-name.js';
import { snapshotPath } from '../store/paths.js';
import type { CheckProblem } from '../sync/types.js';
import { FILE_BYTES, readBounded } from '../util/read-bounded.js';

export interface ProblemLocation {
  /** Absolute path. */
  file: string;
  /** 1-based, when known. */
  line?: number;
}

/** The 1-based line of the first line `test` accepts, or undefined. */
function lineOf(text: string | undefined, test: (line: string) => boolean): number | undefined {
  if (text === undefined) return undefined;
  const index = text.split('\n').findIndex(test);
  return index < 0 ? undefined : index + 1;
}

const quoted = (value: string) => [`'${value}'`, `"${value}"`, `\`${value}\``];

/** A file's text for its line numbers: a regular file only, bounded (src/util/read-bounded.ts), else none. */
async function readText(file: string): Promise<string | undefined> {
  try {
    const rule = { what: 'a file', maxBytes: FILE_BYTES.lockfile, links: 'follow', fix: '', refusal: Error } as const;
    return (await readBounded(file, rule))?.toString('utf8');
  } catch {
    return undefined;
  }
}

/** Locates each problem; one read of the config, the lockfile and each snapshot named. */
export async function locateProblems(problems: readonly CheckProblem[], config: ResolvedConfig): Promise<ProblemLocation[]> {
  const configText = await readText(config.configPath);
  const lockText = await readText(config.lockfilePath);
  const configFile = config.configPath;
  const inConfig = (value: string): ProblemLocation | undefined => {
    const line = lineOf(configText, (l) => quoted(value).some((q) => l.includes(q)));
    return line === undefined ? undefined : { file: configFile, line };
  };
  const configList = (): ProblemLocation => {
    const line = lineOf(configText, (l) => /["']?prompts["']?\s*:/.test(l));
    return line === undefined ? { file: configFile } : { file: configFile, line };
  };
  const inLockfile = (name: string): ProblemLocation => {
    const line = lineOf(lockText, (l) => l.trimStart().startsWith(`${JSON.stringify(name)}:`));
    return line === undefined ? { file: config.lockfilePath } : { file: config.lockfilePath, line };
  };
  const snapshotOf = async (name: string): Promise<ProblemLocation> => {
    if (!parsePackageName(name)) return inLockfile(name);
    const file = snapshotPath(config.snapshotsDir, name);
    return (await readText(file)) === undefined ? inLockfile(name) : { file, line: 1 };
  };
  const module = (problem: CheckProblem): ProblemLocation => {
    const at = /:(\d+):\d+\b/.exec(problem.message);
    return { file: config.outputPath, line: at ? Number(at[1]) : 1 };
  };
  const locations: ProblemLocation[] = [];
  for (const problem of problems) {
    switch (problem.code) {
      case 'no-lockfile':
        locations.push(configList());
        break;
      case 'config-mismatch':
        locations.push(inConfig(problem.subject) ?? inLockfile(problem.subject));
        break;
      case 'remote-not-locked': {
        const workspace = parsePackageName(problem.subject)?.workspace;
        locations.push((workspace && inConfig(`@${workspace}/*`)) || configList());
        break;
      }
      case 'snapshot':
        locations.push(await snapshotOf(problem.subject));
        break;
      case 'orphan-snapshot':
      case 'unlocked-file':
        locations.push({ file: path.resolve(config.rootDir, problem.subject), line: 1 });
        break;
      case 'module-missing':
      case 'module-stale':
      case 'module-type-error':
      case 'module-unchecked':
        locations.push(module(problem));
        break;
      case 'failed-commit':
        locations.push({ file: config.lockfilePath });
        break;
      default:
        // lock-mismatch, context-file, remote-changed, remote-error: the prompt's lockfile entry.
        locations.push(inLockfile(problem.subject));
    }
  }
  return locations;
}
