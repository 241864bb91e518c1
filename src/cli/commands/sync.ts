import type { Command } from 'commander';
import { action, type CliRuntime } from '../action.js';
import type { SyncCommandOptions } from './run-sync.js';

export function registerSync(program: Command, runtime: CliRuntime): void {
  program
    .command('sync')
    .argument('[names...]', 'only these prompts (as named in the config); default: everything the config asks for')
    .description('resolve the requested prompts, fetch what changed, write snapshots, lockfile and module')
    .option('--frozen', 'install exactly what the lockfile says; fetch only missing snapshots; fail if config and lockfile disagree')
    .option('--with-files', 'download file context items next to their snapshots (as contextFiles: true)')
    .option('--refetch', 'get every prompt from the service, even those the list shows unchanged; with names, pinned ones too')
    .option('--report <file>', 'write the pull-request body for what this sync changed to <file> (nothing when nothing changed)')
    .option(
      '--typecheck',
      'when a prompt function\'s parameter changed, run the app\'s type-check (its "typecheck" script, else tsc --noEmit) and list the compile errors (in the --report body too)',
    )
    .option('--rename-exports', 'name every export afresh by the naming rules (names are otherwise kept in the lockfile)')
    .option(
      '-r, --recursive',
      'sync every app of the workspace (npm/yarn workspaces, pnpm-workspace.yaml) with one client; reports per app',
    )
    .action(
      action(runtime, async (ctx, names: string[], opts: Omit<SyncCommandOptions, 'names'>) => {
        const { runSyncCommand } = await import('./run-sync.js');
        return runSyncCommand(ctx, { ...opts, ...(names.length > 0 ? { names } : {}) });
      }),
    );
}
