/** The file holding a project's key (README.md, "Quickstart"): git must never see it. */
const ENV_LOCAL = '.env.local';

export interface GitignoreEdit {
  /** The new text, or undefined when nothing changes. */
  text: string | undefined;
  /** `created`: there was no .gitignore; `added`: the line was appended; `present`: already ignored. */
  action: 'created' | 'added' | 'present';
}

/** A .gitignore pattern as a regular expression on a root-level name (`*` and `?` within a name). */
function patternRegex(pattern: string): RegExp {
  const body = pattern
    .replace(/^(\*\*\/|\/)/, '')
    .replace(/\/$/, '')
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replaceAll('*', '[^/]*')
    .replaceAll('?', '[^/]');
  return new RegExp(`^${body}$`);
}

/**
 * Whether `.gitignore` text ignores `.env.local` at the project root: its last matching pattern
 * wins, as in git (`.env*`, `*.local`, `/.env.local` count; `!.env.local` un-ignores).
 */
function ignoresEnvLocal(text: string): boolean {
  let ignored = false;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const negated = line.startsWith('!');
    const pattern = negated ? line.slice(1) : line;
    // A pattern with a slash inside names a deeper path, never the root file.
    if (pattern.replace(/^(\*\*\/|\/)/, '').includes('/')) continue;
    if (patternRegex(pattern).test(ENV_LOCAL)) ignored = !negated;
  }
  return ignored;
}

/**
 * Adds `.env.local` to a project's .gitignore text (undefined: no file yet), keeping its line
 * endings; a file that already ignores it is left alone.
 */
export function addEnvLocal(text: string | undefined): GitignoreEdit {
  const line = `${ENV_LOCAL}\n`;
  if (text === undefined) return { text: `# Local environment: holds PROMPTLOCK_API_KEY\n${line}`, action: 'created' };
  if (ignoresEnvLocal(text)) return { text: undefined, action: 'present' };
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const separator = text === '' || text.endsWith('\n') ? '' : eol;
  return { text: `${text}${separator}${ENV_LOCAL}${eol}`, action: 'added' };
}
