import type { Command } from 'commander';
import { action, type CliRuntime } from '../action.js';
import type { EditFlags } from './run-edit.js';

export function registerAdd(program: Command, runtime: CliRuntime): void {
  program
    .command('add')
    .argument('<name>', 'prompt to lock: @workspace/package[:vN|latest|draft] or @workspace/*')
    .description('add a prompt to the prompts list of the config (keeping its formatting), then sync it')
    .option('--no-sync', 'only edit the config')
    .action(
      action(runtime, async (ctx, name: string, flags: EditFlags) => {
        const { runEdit, addPromptToConfig } = await import('./run-edit.js');
        return runEdit(ctx, name, flags, addPromptToConfig);
      }),
    );
}

export function registerRemove(program: Command, runtime: CliRuntime): void {
  program
    .command('remove')
    .argument('<name>', 'entry to remove: its exact text, or the package name when only one entry has it')
    .description(
      'remove a prompt from the prompts list of the config (never the last one), then drop its lock entry, snapshot and context files and regenerate the module; no other prompt changes',
    )
    .option('--no-sync', 'only edit the config')
    .action(
      action(runtime, async (ctx, name: string, flags: EditFlags) => {
        const { runEdit, removePromptFromConfig } = await import('./run-edit.js');
        return runEdit(ctx, name, flags, removePromptFromConfig);
      }),
    );
}
