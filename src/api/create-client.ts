import { isLoopbackHost, refuseBadBaseUrl } from '../config/base-url.js';
import { CLIENT_DEFAULTS } from '../config/client-defaults.js';
import { refuseUnsendableKey } from '../config/sendable.js';
import { ConfigError, ServiceError } from '../errors.js';
import { DEFAULT_LIMITS, type Limits } from '../limits.js';
import type { ContextDownload, HealthStatus, Prompt, PromptSummary } from '../types.js';
import type { ClientOptions, ClientStats } from './client-options.js';
import { type BodySink, type DownloadOptions, downloadFile, downloadFileTo } from './download-file.js';
import { listAll, listPages } from './list-all.js';
import { readJsonBody } from './read-json-body.js';
import { contextDownloadSchema, healthSchema, promptSchema } from './schemas.js';
import { limitText, notAServiceError } from './service-errors.js';
import { ServiceTransport } from './service-transport.js';

export interface PromptServiceClient {
  /** Every listed prompt, paging with limit=100 until `hasMore` is false. */
  listAll(options?: { pageSize?: number }): Promise<PromptSummary[]>;
  /** The same list one validated page at a time; the next page is asked for when the caller asks for it. */
  listPages(options?: { pageSize?: number }): AsyncGenerator<PromptSummary[], void, undefined>;
  /** One prompt, validated and unwrapped; `critiquePrompt` stays absent or null as it came. */
  getPrompt(packageName: string, variables?: Record<string, string>): Promise<Prompt>;
  /** The pre-signed address of a context file (`GET /api/v1/prompts/context/download-url`). */
  getContextDownloadUrl(contextId: string): Promise<ContextDownload>;
  /**
   * A file from a pre-signed address (https, or http to loopback), fetched without the API key,
   * size-checked, never larger than `limits.contextFileBytes` whatever `maxBytes` says.
   */
  downloadFile(url: string, options: DownloadOptions): Promise<Uint8Array>;
  /** The same download, its body handed to `sink` as it arrives instead of held in memory; resolves to its size. */
  downloadFileTo(url: string, options: DownloadOptions, sink: BodySink): Promise<number>;
  health(): Promise<HealthStatus>;
  readonly stats: ClientStats;
  /** Requests in flight at once (the option, or its default): a caller runs as many prompts at a time. */
  readonly concurrency: number;
  /** Closes the connection pools once what is in flight has ended (a request still held after a second is cut). */
  close(): Promise<void>;
  /** Closes the connection pools at once: requests in flight fail (`promptlock/live`'s close). */
  destroy(): Promise<void>;
}

/**
 * A client of the prompt service. Refuses (ConfigError) an address that would send the key over
 * plain http to a host other than loopback.
 */
export function createClient(options: ClientOptions): PromptServiceClient {
  refuseBadBaseUrl(options.baseUrl, options.apiKey);
  // Before any request: the HTTP client would refuse it (docs/security.md, "The network").
  refuseUnsendableKey(options.apiKey, options.apiKeySource ?? 'the apiKey option');
  const url = new URL(options.baseUrl);
  if (!options.apiKey && !isLoopbackHost(url.hostname)) {
    // Fail before any request: every answer would be a 401 (docs/local-service.md serves loopback without one).
    throw new ConfigError(`No API key is set for the prompt service at ${options.baseUrl}.`, {
      hint:
        'Set PROMPTLOCK_API_KEY (or BAYT_API_KEY) in the environment, or in .env / .env.local at the project root. ' +
        'To use a local `promptlock serve` instead, set PROMPTLOCK_BASE_URL to the URL it prints (and its test key).',
    });
  }
  const baseUrl = `${url.origin}${url.pathname}`.replace(/\/+$/, '');
  const basePath = url.pathname.replace(/\/+$/, '');
  const limits: Limits = { ...DEFAULT_LIMITS, ...definedOnly(options.limits) };
  // Every JSON answer (a page, a prompt, an address, an error) is cut off at the same limit.
  const json = { maxBytes: limits.responseBytes, sizeLimit: limitText('responseBytes', limits) };
  const concurrency = positive(options.concurrency, CLIENT_DEFAULTS.concurrency);
  const transport = new ServiceTransport({
    baseUrl,
    apiKey: options.apiKey || undefined,
    concurrency,
    timeoutMs: positive(options.timeoutMs, CLIENT_DEFAULTS.timeoutMs),
    retries: Math.max(0, Math.floor(options.retries ?? CLIENT_DEFAULTS.retries)),
    backoffBaseMs: Math.max(0, options.backoffBaseMs ?? CLIENT_DEFAULTS.backoffBaseMs),
    maxRetryAfterMs: Math.max(0, options.maxRetryAfterMs ?? CLIENT_DEFAULTS.maxRetryAfterMs),
    waitForRateLimit: options.waitForRateLimit !== false,
    limits,
    onEvent: options.onEvent,
  });

  const health = () =>
    transport.service({
      method: 'GET',
      path: `${basePath}/v1/health`,
      target: { method: 'GET', endpoint: '/v1/health', what: 'checking health' },
      ...json,
      interpret: (answer) => readJsonBody(answer, healthSchema, 'status'),
    });

  return {
    stats: transport.stats,
    concurrency,
    listAll: async (listOptions) => {
      try {
        return await listAll(transport, basePath, limits, listOptions?.pageSize);
      } catch (error) {
        throw await notAService(error);
      }
    },
    async *listPages(listOptions) {
      try {
        yield* listPages(transport, basePath, limits, listOptions?.pageSize);
      } catch (error) {
        throw await notAService(error);
      }
    },
    getPrompt: (packageName, variables) =>
      transport.service({
        method: 'POST',
        path: `${basePath}/v1/prompts/get`,
        body: JSON.stringify(
          variables && Object.keys(variables).length > 0 ? { package_name: packageName, variables } : { package_name: packageName },
        ),
        target: {
          method: 'POST',
          endpoint: '/v1/prompts/get',
          what: `fetching ${packageName}`,
          packageName,
          notFound: `Prompt ${packageName} was not found (404) at ${baseUrl}.`,
        },
        ...json,
        interpret: (answer) => readJsonBody(answer, promptSchema, 'id'),
      }),
    getContextDownloadUrl: (contextId) =>
      transport.service({
        method: 'GET',
        // Under the base URL's path like every endpoint, with the /api the real service puts before
        // this one (docs/service-interface.md, "Addresses and authentication").
        path: `${basePath}/api/v1/prompts/context/download-url?${new URLSearchParams({ contextId })}`,
        target: {
          method: 'GET',
          endpoint: '/api/v1/prompts/context/download-url',
          what: `getting the download address of context file ${contextId}`,
          notFound: `Context file ${contextId} was not found (404) at ${baseUrl}.`,
          notFoundHint: 'The file may have been deleted on the service since the prompt was answered.',
          badRequest: {
            message: `Context item ${contextId} has no download address (400 validation_error): only items of type "file" have one.`,
            hint: 'A "url" item is recorded with its url, not downloaded.',
          },
        },
        ...json,
        interpret: (answer) => readJsonBody(answer, contextDownloadSchema, 'url'),
      }),
    downloadFile: (fileUrl, downloadOptions) => downloadFile(transport, fileUrl, downloadOptions, { baseUrl, limits }),
    downloadFileTo: (fileUrl, downloadOptions, sink) => downloadFileTo(transport, fileUrl, downloadOptions, { baseUrl, limits }, sink),
    health,
    close: () => transport.close(),
    destroy: () => transport.destroy(),
  };

  /**
   * A list endpoint that is missing (404) may mean the address is not a prompt service at all:
   * the health endpoint tells (docs/local-service.md lists both).
   */
  async function notAService(error: unknown): Promise<unknown> {
    // An HTML page is recognised by the transport; an invalid JSON body is the service's own fault.
    if (!(error instanceof ServiceError) || error.status !== 404) return error;
    const listed = 'GET /v1/prompts answered 404';
    try {
      await health();
      return error;
    } catch (probe) {
      if (probe instanceof ServiceError && probe.code === 'not_a_service') return probe;
      const why = probe instanceof ServiceError && probe.status ? `answered ${probe.status}` : 'failed too';
      return notAServiceError(`: ${listed}, and GET /v1/health ${why}`, { baseUrl, apiKey: options.apiKey, timeoutMs: 0 });
    }
  }
}

function positive(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isFinite(value) && value >= 1 ? Math.floor(value) : fallback;
}

function definedOnly(limits: Partial<Limits> | undefined): Partial<Limits> {
  return Object.fromEntries(Object.entries(limits ?? {}).filter(([, value]) => value !== undefined));
}
