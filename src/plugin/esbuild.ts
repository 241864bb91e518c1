/** `import promptlock from 'promptlock/esbuild'`: the Esbuild plugin (docs/bundler-plugin.md). */
import { promptlockPlugin } from './unplugin.js';

export type { PromptlockPluginOptions } from './unplugin.js';
export default promptlockPlugin.esbuild;
