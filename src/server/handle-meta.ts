/** The health check and the service descriptor: neither needs a key (a client probes them first). */
import type { HealthStatus, ServiceDescriptor } from '../types.js';
import { VERSION } from '../version.js';
import type { Reply } from './route-context.js';

/** Where the descriptor is served: the API root (also `/`). Documented in docs/local-service.md. */
export const DESCRIPTOR_PATH = '/v1';

export function handleHealth(): Reply {
  const health: HealthStatus = { status: 'ok', timestamp: new Date().toISOString() };
  return { status: 200, json: health };
}

export function handleDescriptor(): Reply {
  const descriptor: ServiceDescriptor = {
    name: 'promptlock local prompt service',
    version: VERSION,
    description: 'Serves prompts from a folder with the REST interface of the hosted prompt service (see docs/local-service.md).',
    // The interface it implements is the hosted service's; its reference is the one to read.
    documentation: 'https://docs.baytos.ai',
    endpoints: {
      health: '/v1/health',
      prompts: { get: 'POST /v1/prompts/get', list: 'GET /v1/prompts' },
      contextDownload: 'GET /api/v1/prompts/context/download-url',
      descriptor: `GET ${DESCRIPTOR_PATH}`,
    },
  };
  return { status: 200, json: descriptor };
}
