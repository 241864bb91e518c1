import type { Command } from 'commander';
import { PromptlockError } from '../../errors.js';
import { action, type CliRuntime } from '../action.js';

// Placeholder until the diff command lands.
export function registerDiff(program: Command, runtime: CliRuntime): void {
  program
    .command('diff')
    .description('(diff: not implemented yet)')
    .action(
      action(runtime, async () => {
        throw new PromptlockError('"promptlock diff" is not implemented yet.');
      }),
    );
}
