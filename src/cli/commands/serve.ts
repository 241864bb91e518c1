import type { Command } from 'commander';
import { PromptlockError } from '../../errors.js';
import { action, type CliRuntime } from '../action.js';

// Placeholder until the serve command lands.
export function registerServe(program: Command, runtime: CliRuntime): void {
  program
    .command('serve')
    .description('(serve: not implemented yet)')
    .action(
      action(runtime, async () => {
        throw new PromptlockError('"promptlock serve" is not implemented yet.');
      }),
    );
}
