/** `import promptlock from 'promptlock/vite'`: the Vite plugin (docs/bundler-plugin.md). */
import { promptlockPlugin } from './unplugin.js';

export type { PromptlockPluginOptions } from './unplugin.js';
export default promptlockPlugin.vite;
