import type { Command } from 'commander';
import { PromptlockError } from '../../errors.js';
import { action, type CliRuntime } from '../action.js';

// Placeholder until the watch command lands.
export function registerWatch(program: Command, runtime: CliRuntime): void {
  program
    .command('watch')
    .description('(watch: not implemented yet)')
    .action(
      action(runtime, async () => {
        throw new PromptlockError('"promptlock watch" is not implemented yet.');
      }),
    );
}
