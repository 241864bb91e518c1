import type { Command } from 'commander';
import { PromptlockError } from '../../errors.js';
import { action, type CliRuntime } from '../action.js';

// Placeholders until add/remove land.
export function registerAdd(program: Command, runtime: CliRuntime): void {
  program
    .command('add')
    .argument('<name>')
    .description('(add: not implemented yet)')
    .action(
      action(runtime, async () => {
        throw new PromptlockError('"promptlock add" is not implemented yet.');
      }),
    );
}

export function registerRemove(program: Command, runtime: CliRuntime): void {
  program
    .command('remove')
    .argument('<name>')
    .description('(remove: not implemented yet)')
    .action(
      action(runtime, async () => {
        throw new PromptlockError('"promptlock remove" is not implemented yet.');
      }),
    );
}
