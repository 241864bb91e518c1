import type { Command } from 'commander';
import { firstSignal } from '../../util/first-signal.js';
import { action, type CliRuntime } from '../action.js';

export function registerMcp(program: Command, runtime: CliRuntime): void {
  program
    .command('mcp')
    .description('serve the locked prompts to MCP clients (coding agents, IDEs) over stdio, offline, following the store')
    .action(
      action(runtime, async (ctx) => {
        // stdout is the protocol's: every line of ours goes to stderr (the logger's info and warnings).
        const stop = firstSignal();
        try {
          const [{ mcp }, { callerOf, projectOf }] = await Promise.all([import('../../library.js'), import('../caller.js')]);
          const server = await mcp(
            projectOf(ctx),
            { input: ctx.io.stdin ?? process.stdin, output: ctx.io.stdout, log: ctx.logger },
            callerOf(ctx),
          );
          await Promise.race([server.closed, stop.signal]);
          await server.close();
          return 0;
        } finally {
          stop.cancel();
        }
      }),
    );
}
