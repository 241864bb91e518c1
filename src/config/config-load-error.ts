/**
 * A config that does not load becomes a ConfigError that says where (README, Troubleshooting:
 * "Could not load config file prompts.config.ts:3:3"): the file, the line and column, and a code
 * frame. The position comes from jiti's message (`file:line:col` of a syntax error), the first
 * stack frame in the file (an error thrown while it ran), or jsonc-parser for JSON.
 */
import path from 'node:path';
import { ConfigError } from '../errors.js';
import { jsonProblem } from '../util/json-location.js';
import { readConfigText } from './config-text.js';

interface Location {
  line: number;
  column: number;
  frame: string | undefined;
  /** Said instead of the loader's reason (a JSON text nested too deep). */
  reason: string | undefined;
}

/** The error to throw for `error`, raised while loading `named` (or the file cosmiconfig marked). */
export async function describeLoadError(error: unknown, named: string | undefined): Promise<unknown> {
  if (error instanceof ConfigError) return error;
  const where = (error as { filepath?: string } | null)?.filepath ?? named ?? 'the config file';
  const first = (error instanceof Error ? error.message : String(error)).split('\n')[0]!;
  const reason = first
    .replace(/^(?:Error: )?ParseError: /, '')
    .replace(/ while parsing '.*'$/s, '')
    .trim();
  const at = path.isAbsolute(where) ? await locate(error, where) : undefined;
  const place = at ? `${where}:${at.line}:${at.column}` : where;
  return new ConfigError(`Could not load config file ${place}: ${at?.reason ?? reason}${at?.frame ? `\n${at.frame}` : ''}`, {
    cause: error,
    hint: 'Fix the file so it runs on its own and has a default export (export default defineConfig({ … })).',
  });
}

/** Where in the config file a load failed; undefined when nothing points into it. */
async function locate(error: unknown, filepath: string): Promise<Location | undefined> {
  let text: string;
  try {
    // Bounded, as every read of the config (config-text.ts).
    const read = await readConfigText(filepath);
    if (read === undefined) return undefined;
    text = read;
  } catch {
    return undefined;
  }
  let line: number | undefined;
  let column: number | undefined;
  let reason: string | undefined;
  if (filepath.endsWith('.json')) {
    const problem = jsonProblem(text);
    if (problem !== undefined) {
      reason = problem.reason;
      line = problem.line;
      column = problem.column;
    }
  } else {
    const message = error instanceof Error ? `${error.message}\n${error.stack ?? ''}` : String(error);
    const escaped = filepath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const match = new RegExp(`${escaped}:(\\d+):(\\d+)`).exec(message);
    if (match) {
      line = Number(match[1]);
      column = Number(match[2]);
      // Babel's parse errors count columns from 0; stack frames from 1.
      if (/ParseError/.test(message)) column += 1;
    }
  }
  if (line === undefined || column === undefined) return undefined;
  // jiti's wrapper shares the first line of transpiled code: a column past the end points nowhere.
  const shown = text.split(/\r?\n/)[line - 1];
  if (shown !== undefined && column > shown.length) column = shown.search(/\S|$/) + 1;
  return { line, column, frame: codeFrame(text, line, column), reason };
}

/** Characters of a long line shown before the column in a code frame (and half as many after). */
const FRAME_WIDTH = 80;

/**
 * Two lines before, the line itself with a caret under the column, one line after. A long line
 * (a minified or deeply nested file) is cut to a window around the column, marked with "…".
 */
function codeFrame(text: string, line: number, column: number): string | undefined {
  const lines = text.split(/\r?\n/);
  if (line < 1 || line > lines.length) return undefined;
  const first = Math.max(1, line - 2);
  const last = Math.min(lines.length, line + 1);
  const width = String(last).length;
  const from = Math.max(0, column - 1 - FRAME_WIDTH);
  const to = column - 1 + FRAME_WIDTH / 2;
  const clip = (shown: string) => `${from > 0 ? '…' : ''}${shown.slice(from, to)}${shown.length > to ? '…' : ''}`;
  const out: string[] = [];
  for (let n = first; n <= last; n++) {
    const gutter = `${n === line ? '>' : ' '} ${String(n).padStart(width)} | `;
    out.push(`${gutter}${clip(lines[n - 1]!)}`.trimEnd());
    if (n === line)
      out.push(`  ${' '.repeat(width)} | ${(from > 0 ? ' ' : '') + lines[n - 1]!.slice(from, column - 1).replace(/[^\t]/g, ' ')}^`);
  }
  return out.join('\n');
}
