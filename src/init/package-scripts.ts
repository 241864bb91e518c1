import { detectJsonStyle, stringifyJson } from '../config/edit/json-style.js';
import { ConfigError } from '../errors.js';
import { jsonErrorDetail } from '../util/json-location.js';

/**
 * The `prepare` command. A production install (`npm ci --omit=dev`) has no devDependency, so no
 * `promptlock` binary: the `node -e` guard succeeds then (saying why) and generate is skipped.
 * When promptlock is installed the guard fails on purpose and `promptlock generate` runs, so its
 * failures fail the install. Plain `node -e` and `||` work in sh and in cmd.exe alike.
 */
export const PREPARE_SCRIPT = `node -e "try{require.resolve('promptlock/package.json');process.exit(1)}catch{console.log('promptlock is not installed (production install): skipping promptlock generate')}" || promptlock generate`;

/** What `prepare` was before the guard: found in existing projects and upgraded in place. */
const LEGACY_PREPARE = 'promptlock generate';

/** The scripts a project needs: rebuild the module on install, and a named way to sync. */
export const PROMPTLOCK_SCRIPTS: Readonly<Record<string, string>> = {
  prepare: PREPARE_SCRIPT,
  'prompts:sync': 'promptlock sync',
};

export interface ScriptChange {
  name: string;
  /**
   * `added`: the script was new; `chained`: promptlock's command was appended to an existing
   * `prepare`; `present`: it already ran promptlock's command; `kept`: another script of that
   * name exists and was left alone.
   */
  action: 'added' | 'chained' | 'present' | 'kept';
  /** The script as it now stands. */
  value: string;
}

export interface ScriptsEdit {
  text: string;
  changed: boolean;
  scripts: ScriptChange[];
}

function changeFor(name: string, wanted: string, existing: unknown): ScriptChange {
  if (typeof existing !== 'string' || existing.trim() === '') return { name, action: 'added', value: wanted };
  if (existing.includes(wanted)) return { name, action: 'present', value: existing };
  if (name === 'prepare') {
    // The unguarded command of earlier versions fails production installs: guard it in place.
    if (existing.trim() === LEGACY_PREPARE) return { name, action: 'added', value: wanted };
    const legacy = new RegExp(`(^|&&\\s*)${LEGACY_PREPARE}(?=\\s*(?:&&|$))`);
    if (legacy.test(existing)) return { name, action: 'chained', value: existing.replace(legacy, `$1(${wanted})`) };
    // `prepare` runs every install, so chaining keeps what the project already does there; the
    // parentheses keep a failure of the existing part from being answered by promptlock's `||`.
    return { name, action: 'chained', value: `${existing} && (${wanted})` };
  }
  return { name, action: 'kept', value: existing };
}

/**
 * Adds promptlock's scripts to the text of a package.json without clobbering existing ones,
 * keeping its key order, indentation, line endings and final newline.
 */
export function addPackageScripts(text: string, where: string): ScriptsEdit {
  let root: unknown;
  try {
    root = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${where} is not valid JSON${jsonErrorDetail(text, error)}.`, {
      hint: 'Fix it, or run promptlock init --no-package-json to print the scripts instead.',
      cause: error,
    });
  }
  if (typeof root !== 'object' || root === null || Array.isArray(root)) {
    throw new ConfigError(`${where} is not a JSON object.`, {
      hint: 'Run promptlock init --no-package-json to print the scripts instead.',
    });
  }
  const pkg = root as Record<string, unknown>;
  const current = pkg.scripts ?? {};
  if (typeof current !== 'object' || current === null || Array.isArray(current)) {
    throw new ConfigError(`The "scripts" field of ${where} is not an object.`, {
      hint: 'Fix it, or run promptlock init --no-package-json to print the scripts instead.',
    });
  }
  const scripts = { ...(current as Record<string, unknown>) };
  const changes = Object.entries(PROMPTLOCK_SCRIPTS).map(([name, wanted]) => changeFor(name, wanted, scripts[name]));
  const changed = changes.some((change) => change.action === 'added' || change.action === 'chained');
  if (!changed) return { text, changed, scripts: changes };
  for (const change of changes) scripts[change.name] = change.value;
  pkg.scripts = scripts;
  return { text: stringifyJson(pkg, detectJsonStyle(text)), changed, scripts: changes };
}
