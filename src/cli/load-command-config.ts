import { loadConfig } from '../config/index.js';
import type { ResolvedConfig } from '../config/types.js';
import type { CommandContext } from './context.js';

/** The config for a command: `--config` if given, else searched from the working directory. */
export function loadCommandConfig(ctx: CommandContext): Promise<ResolvedConfig> {
  return loadConfig({ cwd: ctx.io.cwd, configPath: ctx.globals.config, env: ctx.io.env });
}
