// The local Prompt Service (`promptlock serve`): the service interface (docs/service-interface.md), served from a folder.

export type { FaultKind, RunningServer, ServerOptions, ServerStats } from './server-options.js';
export { LOCAL_TEST_KEY } from './server-options.js';
export { startServer } from './start-server.js';
