import type { Command } from 'commander';
import { PromptlockError } from '../../errors.js';
import { action, type CliRuntime } from '../action.js';

// Placeholder until the generate command lands.
export function registerGenerate(program: Command, runtime: CliRuntime): void {
  program
    .command('generate')
    .description('(generate: not implemented yet)')
    .action(
      action(runtime, async () => {
        throw new PromptlockError('"promptlock generate" is not implemented yet.');
      }),
    );
}
