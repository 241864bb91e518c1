/**
 * What one CI provider of `promptlock init --ci` is: where its file goes, the template it is
 * filled from (`templates/ci/<name>.yml`) and what the user still has to do. A new provider is a
 * file beside this one, its template, and a row in `CI_PROVIDERS` (src/init/ci-workflow.ts).
 */
import type { PackageManager } from '../../config/package-manager.js';

/** The project the file is written for. */
export interface CiProject {
  packageManager: PackageManager;
  /**
   * promptlock's files, relative to the project and `/`-separated, each already quoted for the
   * shell: the lockfile, the snapshots folder and the module (and its declarations). The update
   * job commits these and nothing else.
   */
  addPaths: string;
  /** The API key's secret or CI/CD variable. */
  secret: string;
}

export interface CiProviderSpec {
  /** Where the file goes, relative to the project. */
  file: string;
  /**
   * The values of the template's `__NAME__` placeholders beyond the common ones (`SECRET`, `CRON`,
   * `PACKAGE_MANAGER`, `INSTALL`, `INSTALL_WITHOUT_SCRIPTS`, `EXEC`, `ADD_PATHS`). A placeholder
   * alone on its line takes a block of lines, indented as it is; an empty block removes the line.
   */
  values(project: CiProject): Readonly<Record<string, string>>;
  /** What the user still has to do, in words, in order. */
  steps(project: CiProject, file: string): string[];
}
