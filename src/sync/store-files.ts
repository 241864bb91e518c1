import { moduleFormat } from '../codegen/module-format.js';
import type { ResolvedConfig } from '../config/types.js';
import type { StoreFiles } from '../store/journal-scope.js';

/** promptlock's own files in a project (the only ones a journal may name: src/store/journal-scope.ts). */
export function storeFilesOf(
  config: Pick<ResolvedConfig, 'rootDir' | 'snapshotsDir' | 'lockfilePath' | 'outputPath'> & Partial<Pick<ResolvedConfig, 'limits'>>,
): StoreFiles {
  const { declarationPath } = moduleFormat(config.outputPath);
  return {
    rootDir: config.rootDir,
    snapshotsDir: config.snapshotsDir,
    lockfilePath: config.lockfilePath,
    moduleFiles: declarationPath ? [config.outputPath, declarationPath] : [config.outputPath],
    limits: config.limits,
  };
}
