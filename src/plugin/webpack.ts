/** `import promptlock from 'promptlock/webpack'`: the Webpack plugin (docs/bundler-plugin.md). */
import { promptlockPlugin } from './unplugin.js';

export type { PromptlockPluginOptions } from './unplugin.js';
export default promptlockPlugin.webpack;
