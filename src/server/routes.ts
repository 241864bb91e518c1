/** The route table: exact paths (no normalisation, so no path games), their methods, and whether they need a key. */
import { handleDownloadUrl, handleFile } from './handle-context-files.js';
import { handleGet } from './handle-get.js';
import { handleList } from './handle-list.js';
import { DESCRIPTOR_PATH, handleDescriptor, handleHealth } from './handle-meta.js';
import type { Reply, RouteContext } from './route-context.js';
import { FILE_ROUTE_PREFIX } from './url-signer.js';

type RouteName = 'list' | 'get' | 'health' | 'descriptor' | 'download-url' | 'file' | 'other';

export interface Route {
  name: RouteName;
  /** Allowed methods; HEAD is accepted wherever GET is. */
  methods: readonly string[];
  needsKey: boolean;
  handle(ctx: RouteContext): Reply | Promise<Reply>;
}

const GET = ['GET', 'HEAD'] as const;

const ROUTES: ReadonlyMap<string, Route> = new Map([
  ['/v1/prompts', { name: 'list', methods: GET, needsKey: true, handle: handleList }],
  ['/v1/prompts/get', { name: 'get', methods: ['POST'], needsKey: true, handle: handleGet }],
  ['/v1/health', { name: 'health', methods: GET, needsKey: false, handle: handleHealth }],
  [DESCRIPTOR_PATH, { name: 'descriptor', methods: GET, needsKey: false, handle: handleDescriptor }],
  ['/', { name: 'descriptor', methods: GET, needsKey: false, handle: handleDescriptor }],
  ['/api/v1/prompts/context/download-url', { name: 'download-url', methods: GET, needsKey: true, handle: handleDownloadUrl }],
]);

const FILE_ROUTE: Route = { name: 'file', methods: GET, needsKey: false, handle: handleFile };

export function matchRoute(pathname: string): Route | undefined {
  const route = ROUTES.get(pathname);
  if (route) return route;
  if (
    pathname.startsWith(FILE_ROUTE_PREFIX) &&
    pathname.length > FILE_ROUTE_PREFIX.length &&
    !pathname.slice(FILE_ROUTE_PREFIX.length).includes('/')
  ) {
    return FILE_ROUTE;
  }
  return undefined;
}

/** Faults are injected into the API (`/v1`, `/api`), not into file downloads. */
export function isApiPath(pathname: string): boolean {
  return pathname === '/v1' || pathname.startsWith('/v1/') || pathname.startsWith('/api/');
}
