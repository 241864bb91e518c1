/** `import promptlock from 'promptlock/rspack'`: the Rspack plugin (docs/bundler-plugin.md). */
import { promptlockPlugin } from './unplugin.js';

export type { PromptlockPluginOptions } from './unplugin.js';
export default promptlockPlugin.rspack;
