import type { Command } from 'commander';
import { PromptlockError } from '../../errors.js';
import { action, type CliRuntime } from '../action.js';

// Placeholder until the init command lands.
export function registerInit(program: Command, runtime: CliRuntime): void {
  program
    .command('init')
    .description('(init: not implemented yet)')
    .action(
      action(runtime, async () => {
        throw new PromptlockError('"promptlock init" is not implemented yet.');
      }),
    );
}
