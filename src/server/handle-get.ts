/**
 * `POST /v1/prompts/get`: one prompt by package name, with `variables` substituted into `content`
 * by the shared template module (whose parser the code generator compiles prompts with; the parity
 * test holds a generated function's render equal to this answer).
 * No selector means `latest`; `draft` (or `v0`, its version) answers the draft.
 */
import { basePackageName, parsePackageName } from '../package-name.js';
import { renderTemplate } from '../template/index.js';
import { ApiError, echo } from './api-error.js';
import type { ServedPackage, ServedVersion } from './catalog.js';
import { callerWorkspace, type Reply, type RouteContext } from './route-context.js';

interface GetRequest {
  packageName: string;
  variables: Record<string, string>;
}

const invalid = (message: string, field: string) => new ApiError(400, 'validation_error', message, { field });

/** Quotes user input in a message, cut short so a huge value cannot flood a log. */
const quote = (text: string) => JSON.stringify(echo(text));

function parseBody(body: Buffer): GetRequest {
  const text = body.toString('utf8');
  if (text.trim() === '') {
    throw invalid('Request body is required: send JSON like {"package_name": "@acme/support-reply:v2"}.', 'body');
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw invalid(`Request body is not valid JSON: ${echo((error as Error).message)}`, 'body');
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    throw invalid('Request body must be a JSON object with "package_name" (and optionally "variables").', 'body');
  }
  const { package_name: packageName, variables } = data as Record<string, unknown>;
  if (packageName === undefined) {
    throw invalid('package_name is required: a string like "@acme/support-reply:v2".', 'package_name');
  }
  if (typeof packageName !== 'string') throw invalid(`package_name must be a string (got ${typeof packageName}).`, 'package_name');
  const values: Record<string, string> = Object.create(null);
  if (variables !== undefined) {
    if (variables === null || typeof variables !== 'object' || Array.isArray(variables)) {
      throw invalid('variables must be an object whose values are strings.', 'variables');
    }
    for (const [name, value] of Object.entries(variables)) {
      if (typeof value !== 'string') {
        throw invalid(
          `variables.${echo(name)} must be a string (got ${value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value}); send typed values in their string form.`,
          `variables.${echo(name)}`,
        );
      }
      values[name] = value;
    }
  }
  return { packageName, variables: values };
}

function pickVersion(pkg: ServedPackage, selector: string | undefined, asked: string): ServedVersion {
  // The draft's version is v0, and the service's SDK asks for it by that name too.
  if (selector === 'draft' || selector === 'v0') {
    if (pkg.draft) return pkg.draft;
    throw new ApiError(404, 'not_found', `Prompt ${asked} not found: ${pkg.summary.packageName} has no draft.`);
  }
  if (selector === undefined || selector === 'latest') {
    if (pkg.latest !== undefined) return pkg.published.get(pkg.latest)!;
    throw new ApiError(404, 'not_found', `Prompt ${asked} not found: ${pkg.summary.packageName} has no published version (only a draft).`);
  }
  const found = pkg.published.get(Number(selector.slice(1)));
  if (found && selector === `v${Number(selector.slice(1))}`) return found;
  const published = [...pkg.published.keys()].sort((a, b) => a - b).map((n) => `v${n}`);
  throw new ApiError(
    404,
    'not_found',
    `Prompt ${asked} not found: published versions are ${published.join(', ') || 'none'}${pkg.draft ? ' (and a draft)' : ''}.`,
  );
}

export function handleGet(ctx: RouteContext): Reply {
  const request = parseBody(ctx.body);
  const name = parsePackageName(request.packageName);
  if (!name) {
    throw invalid(`package_name must match @<workspace>/<package>[:<version>] (got ${quote(request.packageName)}).`, 'package_name');
  }
  const scope = callerWorkspace(ctx.caller);
  // Checked before existence, so a key for one workspace learns nothing about another's prompts.
  if (scope !== undefined && scope !== name.workspace) {
    throw new ApiError(403, 'forbidden', `This API key has no access to workspace "${echo(name.workspace)}".`, {
      workspace: echo(name.workspace),
    });
  }
  const pkg = ctx.catalog.byName.get(basePackageName(name));
  if (!pkg) throw new ApiError(404, 'not_found', `Prompt ${echo(request.packageName)} not found.`);
  const { prompt, segments } = pickVersion(pkg, name.selector, echo(request.packageName));
  return {
    status: 200,
    json: {
      ...prompt,
      content: renderTemplate(segments, request.variables),
      metadata: { ...prompt.metadata, generatedAt: Date.now() },
    },
  };
}
