import { loadConfig } from '../config/index.js';
import type { ResolvedConfig } from '../config/types.js';
import type { CommandContext } from './context.js';

/** The config for a command: `--config` if given, else searched from the working directory. */
export async function loadCommandConfig(ctx: CommandContext): Promise<ResolvedConfig> {
  const config = await loadConfig({ cwd: ctx.io.cwd, configPath: ctx.globals.config, env: ctx.io.env });
  // A key from the project's .env files is as secret as one from the environment.
  ctx.logger.addSecret(config.apiKey);
  return config;
}
