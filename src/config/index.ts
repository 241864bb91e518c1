export { loadConfig } from './load-config.js';
