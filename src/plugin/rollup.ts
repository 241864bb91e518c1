/** `import promptlock from 'promptlock/rollup'`: the Rollup plugin (docs/bundler-plugin.md). */
import { promptlockPlugin } from './unplugin.js';

export type { PromptlockPluginOptions } from './unplugin.js';
export default promptlockPlugin.rollup;
