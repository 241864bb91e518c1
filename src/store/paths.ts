import { lstat, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError, FileSystemError, LockfileError, PromptlockError } from '../errors.js';
import { parsePackageName } from '../package-name.js';
import { ownConfigFile } from '../util/project-config.js';
import { WORK_DIR_NAME } from './work-dir.js';

/** `<snapshots>/<workspace>/<package>.json` for a base package name `@workspace/package`. */
export function snapshotPath(snapshotsDir: string, name: string): string {
  const parsed = parsePackageName(name);
  if (!parsed) throw new Error(`not a package name: ${name}`);
  return path.join(snapshotsDir, parsed.workspace, `${parsed.package}.json`);
}

/**
 * A context file of package `name` on disk, from its path relative to the snapshots folder
 * (`ws/pkg.files/<file>`). Refuses anything but one plain file name inside that package's own
 * `.files` folder: `.`, `..`, an empty name, or a separator would reach out of it (`path.join`
 * would silently resolve `pkg.files/..` to the workspace folder).
 */
export function contextFilePath(snapshotsDir: string, name: string, relative: string): string {
  const parsed = parsePackageName(name);
  const folder = parsed ? `${parsed.workspace}/${parsed.package}.files/` : undefined;
  const file = folder && relative.startsWith(folder) ? relative.slice(folder.length) : undefined;
  if (file === undefined || file === '.' || file === '..' || !/^[A-Za-z0-9._-]+$/.test(file)) {
    throw new LockfileError(
      `Refusing the context file path "${relative}" of ${name}: it must be one file name inside "${folder ?? '<ws>/<pkg>.files/'}".`,
      {
        hint: 'A context item id or file name that is "." or ".." (or holds a path) cannot be stored; ask the service owner to rename it.',
      },
    );
  }
  return path.join(snapshotsDir, parsed!.workspace, `${parsed!.package}.files`, file);
}

/** Errors of a path that cannot exist on this disk (a name too long): such a file is missing, never an error. */
export const CANNOT_EXIST = new Set(['ENOENT', 'ENAMETOOLONG']);

/** True when `child` is `parent` or inside it (lexically). */
export function isWithin(parent: string, child: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (!relative.startsWith(`..${path.sep}`) && relative !== '..' && !path.isAbsolute(relative));
}

/**
 * Checks a path promptlock is about to write, rename or delete, before it touches it: it must lie
 * strictly inside the project folder `rootDir` (and outside promptlock's own `.promptlock/`), and no
 * existing component below `rootDir` may be a symbolic link that leads out of the project. Inside
 * the snapshots folder (`storeDir`) no link is followed at all, not even to elsewhere in the
 * project: pruning there must only ever remove promptlock's own files. Throws naming the link.
 * For the same reason no folder on the way to a file of the snapshots folder (below the project
 * folder) may be another promptlock project, one with a config of its own: a snapshots folder in
 * another app of a workspace would prune that app's snapshots as orphans.
 *
 * One guard is one scope of knowledge: a folder it lstat'ed as a real folder (or as a link it
 * allows) is not lstat'ed again by the same guard, and with `rememberMissing` a folder it found
 * missing is taken as still missing (so is everything below it). That knowledge is only as fresh
 * as the scope, which is why the two uses keep separate guards (docs/architecture.md, "Atomic
 * commit"): staging uses one per transaction, with `rememberMissing`, and may act on stale
 * knowledge, because nothing it decides is trusted later; applying a committed journal uses a guard
 * of its own, created after the commit point, that never remembers a missing folder
 * (journal-apply.ts says how the apply uses it).
 */
export class StorePathGuard {
  private readonly safeDirs = new Set<string>();
  private readonly missingDirs = new Set<string>();
  /** Folders found to be no other project's (on the way to the snapshots folder's files). */
  private readonly ownDirs = new Set<string>();
  private realRoot: Promise<string> | undefined;

  constructor(
    private readonly rootDir: string,
    private readonly storeDir?: string,
    private readonly options: { rememberMissing?: boolean } = {},
  ) {}

  /**
   * Checks `target` (see class comment). Resolves to true when it exists (its last component was
   * lstat'ed), false when it or a folder above it does not.
   */
  async check(target: string, action: string): Promise<boolean> {
    return this.walk(path.resolve(this.rootDir), this.inProject(target, action), action, false);
  }

  /** The absolute `target`, refused (without touching the disk) unless it is inside the project and outside `.promptlock/`. */
  inProject(target: string, action: string): string {
    const root = path.resolve(this.rootDir);
    const file = path.resolve(target);
    if (file === root || !isWithin(root, file) || isWithin(path.join(root, WORK_DIR_NAME), file)) {
      throw new PromptlockError(`Refusing to ${action} ${file}: it is outside the project folder ${root}.`, {
        hint: 'promptlock only writes and removes its own files inside the project (check the lockfile, snapshots and output options, and .promptlock/).',
      });
    }
    return file;
  }

  /**
   * Checks the folder `file` is to be written into: every component below the project folder
   * must be a real folder (or a link this guard allows). Resolves to true when the whole folder
   * exists, false when some of it does not (yet).
   */
  async checkFolder(file: string, action: string): Promise<boolean> {
    const target = this.inProject(file, action);
    const root = path.resolve(this.rootDir);
    const folder = path.dirname(target);
    return folder === root || this.walk(root, folder, action, true, target);
  }

  /** Forgets what this guard knew of `dir` (a folder the apply removed): the next check lstat's it again. */
  forget(dir: string): void {
    this.safeDirs.delete(path.resolve(dir));
  }

  /** lstat's each component of `target` below `root`, the cached folders excepted (see `check`). */
  private async walk(root: string, target: string, action: string, allFolders: boolean, shown = target): Promise<boolean> {
    const parts = path.relative(root, target).split(path.sep);
    let current = root;
    for (const [index, part] of parts.entries()) {
      current = path.join(current, part);
      const isFolder = allFolders || index < parts.length - 1;
      if (isFolder && this.safeDirs.has(current)) {
        if (this.inStore(shown)) await this.refuseOtherProject(root, current, shown, action);
        continue;
      }
      if (isFolder && this.missingDirs.has(current)) return false;
      let stats;
      try {
        stats = await lstat(current);
      } catch (error) {
        if (!CANNOT_EXIST.has((error as NodeJS.ErrnoException).code ?? '')) throw new FileSystemError('inspect', current, error);
        if (isFolder && this.options.rememberMissing) this.missingDirs.add(current);
        return false; // the rest does not exist (yet)
      }
      if (stats.isSymbolicLink()) {
        await this.refuseLink(current, shown, action);
        stats = await stat(current); // an allowed link (in the project, above the store): what it points at
      }
      if (isFolder) {
        if (!stats.isDirectory()) throw new FileSystemError(action, shown, Object.assign(new Error('not a folder'), { code: 'ENOTDIR' }));
        if (this.inStore(shown)) await this.refuseOtherProject(root, current, shown, action);
        this.safeDirs.add(current);
      }
    }
    return true;
  }

  private inStore(file: string): boolean {
    return this.storeDir !== undefined && isWithin(path.resolve(this.storeDir), file);
  }

  private async refuseOtherProject(root: string, folder: string, file: string, action: string): Promise<void> {
    if (this.ownDirs.has(folder)) return;
    // A package.json that is not JSON says nothing either way.
    const config = await ownConfigFile(folder).catch(() => undefined);
    if (config === undefined) {
      this.ownDirs.add(folder);
      return;
    }
    throw new ConfigError(
      `Refusing to ${action} ${file}: ${path.relative(root, folder)} is another promptlock project (it has ${config}), and a sync here would delete or overwrite its files.`,
      {
        hint: 'Give this project a snapshots folder of its own, outside that folder (the "snapshots" option): in a workspace, each app keeps its store inside its own folder.',
      },
    );
  }

  private async refuseLink(link: string, file: string, action: string): Promise<void> {
    const resolved = await realpath(link).catch(() => undefined);
    this.realRoot ??= realpath(this.rootDir).catch(() => path.resolve(this.rootDir));
    const realRoot = await this.realRoot;
    const store = this.storeDir ? path.resolve(this.storeDir) : undefined;
    const inStore = store !== undefined && link !== store && isWithin(store, link);
    // A link above the snapshots folder (the snapshots folder itself, say) may stay in the project.
    if (!inStore && resolved !== undefined && resolved !== realRoot && isWithin(realRoot, resolved)) return;
    throw new PromptlockError(
      `Refusing to ${action} ${file}: ${link} is a symbolic link${resolved ? ` to ${resolved}` : ''}, ${inStore ? 'inside the snapshots folder' : 'leading out of the project'}.`,
      {
        hint: 'promptlock never follows links out of its store. Replace the link with a real folder or file (or remove it) and run the command again.',
      },
    );
  }
}
