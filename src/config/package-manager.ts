/**
 * The project's package manager, found by its lockfile (package.json's `packageManager` field
 * decides between two), and the commands the CI files and `sync --typecheck` run with it
 * (docs/ci.md, "Package managers").
 */
import { join } from 'node:path';
import { ConfigError } from '../errors.js';
import { readIfExists } from '../util/read-if-exists.js';

type PackageManagerName = 'npm' | 'pnpm' | 'yarn';

export interface PackageManager {
  name: PackageManagerName;
  /** Yarn 2 or later: `--immutable`, no `prepare` on install, run through Corepack. */
  berry: boolean;
  /** The lockfile it was found by; undefined when the project has none yet. */
  lockfile: string | undefined;
  /** The `packageManager` field of package.json (`pnpm@10.4.1`), when it names this manager. */
  pinned: string | undefined;
  /** A clean install from the lockfile, package scripts run. */
  install: string;
  /** The same install with no package script run (the app's `prepare` included). */
  installWithoutScripts: string;
  /** How an installed binary runs: `npx promptlock`, `pnpm exec promptlock`, `yarn promptlock`. */
  exec: string;
  /** How a package.json script runs, its name appended: `npm run typecheck`. */
  run: string;
}

const LOCKFILES: ReadonlyArray<readonly [string, PackageManagerName]> = [
  ['package-lock.json', 'npm'],
  ['npm-shrinkwrap.json', 'npm'],
  ['pnpm-lock.yaml', 'pnpm'],
  ['yarn.lock', 'yarn'],
];

function commands(name: PackageManagerName, berry: boolean): Pick<PackageManager, 'install' | 'installWithoutScripts' | 'exec' | 'run'> {
  if (name === 'pnpm') {
    return {
      install: 'pnpm install --frozen-lockfile',
      installWithoutScripts: 'pnpm install --frozen-lockfile --ignore-scripts',
      exec: 'pnpm exec',
      run: 'pnpm run',
    };
  }
  if (name === 'yarn') {
    return berry
      ? {
          install: 'yarn install --immutable',
          installWithoutScripts: 'yarn install --immutable --mode=skip-build',
          exec: 'yarn',
          run: 'yarn run',
        }
      : {
          install: 'yarn install --frozen-lockfile',
          installWithoutScripts: 'yarn install --frozen-lockfile --ignore-scripts',
          exec: 'yarn',
          run: 'yarn run',
        };
  }
  return { install: 'npm ci', installWithoutScripts: 'npm ci --ignore-scripts', exec: 'npx', run: 'npm run' };
}

/** `pnpm@10.4.1+sha512.…` → `pnpm` and `10`. */
function parsePinned(field: unknown): { name: string; major: number | undefined } | undefined {
  if (typeof field !== 'string') return undefined;
  const match = /^(npm|pnpm|yarn)@(\d+)?/.exec(field.trim());
  return match ? { name: match[1]!, major: match[2] === undefined ? undefined : Number(match[2]) } : undefined;
}

/**
 * The package manager of the project in `dir`: by its lockfile; by the `packageManager` field
 * when there are lockfiles of two managers or none; npm when nothing says. Lockfiles of two
 * managers and no field to choose is an error: the CI files would install with the wrong one.
 */
export async function detectPackageManager(dir: string): Promise<PackageManager> {
  let field: unknown;
  try {
    field = (JSON.parse((await readIfExists(join(dir, 'package.json'))) ?? '{}') as { packageManager?: unknown }).packageManager;
  } catch {
    // A package.json that is not JSON is reported by what reads it for its own purpose.
  }
  const pinned = parsePinned(field);
  const found: Array<{ file: string; name: PackageManagerName; text: string }> = [];
  for (const [file, name] of LOCKFILES) {
    const text = await readIfExists(join(dir, file));
    if (text !== undefined) found.push({ file, name, text });
  }
  const names = [...new Set(found.map((f) => f.name))];
  let lock = found[0];
  if (names.length > 1) {
    lock = found.find((f) => f.name === pinned?.name);
    if (!lock) {
      throw new ConfigError(
        `${found.map((f) => f.file).join(' and ')} are both in the project: promptlock cannot tell which package manager installs it.`,
        {
          hint: 'Delete the lockfile of the package manager you do not use, or name yours in package.json ("packageManager": "pnpm@10.0.0").',
        },
      );
    }
  }
  const name = lock?.name ?? (pinned?.name as PackageManagerName | undefined) ?? 'npm';
  // Yarn 1's lockfile says `# yarn lockfile v1`; Yarn 2 and later write a `__metadata:` block.
  const berry = name === 'yarn' && (lock ? /^__metadata:/m.test(lock.text) : pinned?.major !== undefined && pinned.major >= 2);
  return {
    name,
    berry,
    lockfile: lock?.file,
    pinned: pinned?.name === name && typeof field === 'string' ? field.trim() : undefined,
    ...commands(name, berry),
  };
}
