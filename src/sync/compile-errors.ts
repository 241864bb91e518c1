/**
 * The app's type-check after a breaking sync (`sync --typecheck`, docs/ci.md "Breaking changes
 * show their call sites"): the compiler's errors read from its output, and the part of the
 * pull-request body that lists them under "Breaking changes", file and line first, bounded.
 * Pure: output in, data and markdown out; the CLI runs the type-check.
 */

import { codeSpan } from '../util/markdown-text.js';
import { pluralise } from '../util/pluralise.js';

export interface CompileError {
  /** As the compiler printed it, relative to the project when it was inside; undefined for a project-wide error. */
  file: string | undefined;
  line: number | undefined;
  column: number | undefined;
  /** `TS2353`. */
  code: string;
  /** The first line of the message. */
  message: string;
}

/** What the type-check of the app said; `command` is what ran (`npm run typecheck`, `tsc --noEmit`). */
export type AppTypecheck =
  | { status: 'passed'; command: string }
  | { status: 'failed'; command: string; exitCode: number | null; errors: CompileError[]; lastLines: string[]; timedOut: boolean }
  | { status: 'skipped'; reason: string };

/** Errors listed in a pull-request body; the rest are counted. */
const MAX_LISTED = 30;
/** Characters of one message kept. */
const MAX_MESSAGE = 300;

const ANSI = /\u001b\[[0-9;]*m/g;
/** `src/app.ts(3,17): error TS2353: …` (tsc's plain output). */
const PLAIN = /^(?<file>[^\s(][^(]*)\((?<line>\d+),(?<column>\d+)\): error (?<code>TS\d+): (?<message>.*)$/;
/** `src/app.ts:3:17 - error TS2353: …` (tsc --pretty, colours removed). */
const PRETTY = /^(?<file>\S.*?):(?<line>\d+):(?<column>\d+) - error (?<code>TS\d+): (?<message>.*)$/;
/** `error TS5023: Unknown compiler option …`: no file. */
const GLOBAL = /^error (?<code>TS\d+): (?<message>.*)$/;

function clip(text: string): string {
  const flat = text.trim();
  return flat.length > MAX_MESSAGE ? `${flat.slice(0, MAX_MESSAGE - 1)}…` : flat;
}

/**
 * The compiler errors in a type-check's output (tsc, and tools printing as it does, such as
 * vue-tsc), in the order printed. Paths inside `rootDir` become relative, `/`-separated.
 */
export function parseCompileErrors(output: string, rootDir: string): CompileError[] {
  const root = rootDir.replaceAll('\\', '/').replace(/\/?$/, '/');
  const errors: CompileError[] = [];
  for (const raw of output.split(/\r?\n/)) {
    const line = raw.replace(ANSI, '');
    const found = PLAIN.exec(line) ?? PRETTY.exec(line);
    if (found?.groups) {
      const g = found.groups as Record<'file' | 'line' | 'column' | 'code' | 'message', string>;
      const file = g.file.trim().replaceAll('\\', '/');
      errors.push({
        file: file.startsWith(root) ? file.slice(root.length) : file,
        line: Number(g.line),
        column: Number(g.column),
        code: g.code,
        message: clip(g.message),
      });
      continue;
    }
    const global = GLOBAL.exec(line);
    if (global?.groups) {
      errors.push({
        file: undefined,
        line: undefined,
        column: undefined,
        code: global.groups.code!,
        message: clip(global.groups.message!),
      });
    }
  }
  return errors;
}

/** `src/app.ts:3` */
function location(error: CompileError): string {
  return error.file === undefined ? '' : `${codeSpan(`${error.file}:${error.line}`)} `;
}

/**
 * The lines the pull-request body shows under "Breaking changes" for the type-check: each error
 * file and line first, at most 30 of them; or that the app type-checks, or why it was not checked.
 * Compiler text reaches the body only as code spans.
 */
export function compileErrorsSection(result: AppTypecheck): string[] {
  if (result.status === 'skipped') return [`_The app was not type-checked: ${result.reason}._`, ''];
  const command = codeSpan(result.command);
  if (result.status === 'passed') return [`${command} passes after this update: no call site in this app needs a change.`, ''];
  const lines = ['#### Compile errors', ''];
  const { errors } = result;
  if (errors.length === 0) {
    const why = result.timedOut ? 'timed out' : `failed (exit code ${result.exitCode})`;
    lines.push(`${command} ${why} after this update, with no compiler error in a form promptlock reads. Its last lines:`, '');
    for (const line of result.lastLines) lines.push(`- ${codeSpan(clip(line))}`);
    return [...lines, ''];
  }
  lines.push(`${command} fails after this update with ${pluralise(errors.length, 'error')}: each is a call site to update.`, '');
  for (const error of errors.slice(0, MAX_LISTED)) lines.push(`- ${location(error)}${error.code}: ${codeSpan(error.message)}`);
  if (errors.length > MAX_LISTED)
    lines.push(`- …and ${pluralise(errors.length - MAX_LISTED, 'more error')}: run ${command} on this branch.`);
  return [...lines, ''];
}
