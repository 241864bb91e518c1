import type { Command } from 'commander';
import { PromptlockError } from '../../errors.js';
import { action, type CliRuntime } from '../action.js';

// Placeholder until the sync command lands.
export function registerSync(program: Command, runtime: CliRuntime): void {
  program
    .command('sync')
    .description('(sync: not implemented yet)')
    .action(
      action(runtime, async () => {
        throw new PromptlockError('"promptlock sync" is not implemented yet.');
      }),
    );
}
