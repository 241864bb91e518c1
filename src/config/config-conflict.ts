/**
 * A config file holding git conflict markers (docs/cli.md, "Merging branches"): two branches that
 * each `add` a prompt both append to the `prompts` list, so `git merge` stops there first. Every
 * command that loads the config says so, with the file and line, instead of a syntax error;
 * `promptlock sync` resolves a conflict made only of entries (src/config/edit/resolve-conflict.ts).
 */
import path from 'node:path';
import { ConfigError } from '../errors.js';
import { conflictMarkerLine } from '../store/lockfile-merge.js';
import { displayPath } from '../util/display-path.js';

export class ConfigConflictError extends ConfigError {
  /** The conflicted file (absolute). */
  readonly filepath: string;
  /** 1-based line of the first `<<<<<<<`. */
  readonly line: number;

  constructor(filepath: string, line: number, reason?: string) {
    // Relative to this process's folder; the CLI shows it relative to the folder the command runs in.
    const where = `${displayPath(filepath, process.cwd())}:${line}`;
    const packageJson = path.basename(filepath) === 'package.json';
    super(`Config file ${where} has unresolved git merge conflict markers${reason ? ` that promptlock cannot resolve: ${reason}` : ''}.`, {
      hint: packageJson
        ? 'Resolve the conflict in package.json (keep both sides\' entries in its "promptlock" key), then run `promptlock sync`.'
        : reason
          ? "Edit the file: keep both sides' entries and delete the <<<<<<<, ======= and >>>>>>> lines, then run `promptlock sync`."
          : "Keep both sides' entries, then run `promptlock sync` (it resolves a conflict inside the prompts list by itself).",
    });
    this.filepath = filepath;
    this.line = line;
  }
}

/** Throws ConfigConflictError when `content` holds a git conflict start marker. */
export function rejectConflictMarkers(filepath: string, content: string): void {
  const line = conflictMarkerLine(content);
  if (line !== undefined) throw new ConfigConflictError(filepath, line);
}
