import type { Command } from 'commander';
import { PromptlockError } from '../../errors.js';
import { action, type CliRuntime } from '../action.js';

// Placeholder until the check command lands.
export function registerCheck(program: Command, runtime: CliRuntime): void {
  program
    .command('check')
    .description('(check: not implemented yet)')
    .action(
      action(runtime, async () => {
        throw new PromptlockError('"promptlock check" is not implemented yet.');
      }),
    );
}
