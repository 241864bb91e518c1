/**
 * Reads one hand-authored package folder (`<dir>/<workspace>/<package>/`, docs/local-service.md):
 * `prompt.json` with what versions share, versions as `v<N>/` folders or `v<N>.md` shorthands, an
 * optional `draft/` or `draft.md`, and context files anywhere inside the package folder.
 */
import { type Dirent, promises as fs } from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import { ConfigError } from '../errors.js';
import { formatPackageName, type Selector } from '../package-name.js';
import type { ContextItem, Prompt } from '../types.js';
import { describeIssue } from '../util/describe-issue.js';
import { readIfExists } from '../util/read-if-exists.js';
import { type AuthoredContextItem, type PackageMeta, packageMetaSchema, type VersionMeta, versionMetaSchema } from './authored-schema.js';
import { deriveCreatedAt, deriveId, versionCreatedAt } from './derive-ids.js';
import { guessMimeType } from './guess-mime-type.js';
import { authoredText, type LoadedVersion, type ServedFile } from './loaded-package.js';

const VERSION_ENTRY = /^(?:v(\d+)|draft)(\.md)?$/;
const VERSION_FILES = new Set(['content.md', 'system.md', 'critique.md', 'description.md', 'prompt.json']);

interface VersionSource {
  number: number;
  /** A `v<N>/` or `draft/` folder, or a `v<N>.md` / `draft.md` shorthand holding only the content. */
  entry: string;
  isFolder: boolean;
}

async function readJson<T>(file: string, schema: z.ZodType<T>): Promise<T | undefined> {
  const text = await readIfExists(file);
  if (text === undefined) return undefined;
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${file} is not valid JSON: ${(error as Error).message}`);
  }
  const parsed = schema.safeParse(data);
  if (!parsed.success) {
    throw new ConfigError(`Invalid value in ${file}: ${describeIssue(parsed.error)}`, {
      hint: 'See docs/local-service.md for the fields prompt.json takes.',
    });
  }
  return parsed.data;
}

function versionSources(entries: Dirent[], pkgDir: string): VersionSource[] {
  const byNumber = new Map<number, VersionSource>();
  for (const entry of entries) {
    const match = VERSION_ENTRY.exec(entry.name);
    if (!match) continue;
    const isFolder = match[2] === undefined;
    if (isFolder ? !entry.isDirectory() : !entry.isFile()) continue;
    const number = match[1] === undefined ? 0 : Number(match[1]);
    if (match[1] !== undefined && (number === 0 || match[1] !== String(number))) {
      throw new ConfigError(`${path.join(pkgDir, entry.name)}: versions are numbered v1, v2, … without leading zeros.`, {
        hint: 'Name the draft "draft/" (or "draft.md"); it is served as version v0.',
      });
    }
    const clash = byNumber.get(number);
    if (clash) {
      throw new ConfigError(`${pkgDir} defines ${number === 0 ? 'the draft' : `v${number}`} twice: ${clash.entry} and ${entry.name}.`, {
        hint: 'Keep either the folder or the .md shorthand.',
      });
    }
    byNumber.set(number, { number, entry: entry.name, isFolder });
  }
  return [...byNumber.values()].sort((a, b) => a.number - b.number);
}

/** Resolves a context file inside the package folder; anything reaching outside is refused. */
async function contextFile(pkgDir: string, relative: string, where: string): Promise<{ path: string; size: number }> {
  const resolved = path.resolve(pkgDir, relative);
  const inside = path.relative(pkgDir, resolved);
  if (path.isAbsolute(relative) || inside === '' || inside.startsWith('..') || path.isAbsolute(inside)) {
    throw new ConfigError(`${where}: context file "${relative}" must be a path inside the package folder.`);
  }
  let real: string;
  try {
    real = await fs.realpath(resolved);
  } catch {
    throw new ConfigError(`${where}: context file "${relative}" does not exist (looked for ${resolved}).`);
  }
  const realInside = path.relative(await fs.realpath(pkgDir), real);
  if (realInside.startsWith('..') || path.isAbsolute(realInside)) {
    throw new ConfigError(`${where}: context file "${relative}" links outside the package folder.`);
  }
  const stat = await fs.stat(real);
  if (!stat.isFile()) throw new ConfigError(`${where}: context file "${relative}" is not a file.`);
  return { path: real, size: stat.size };
}

async function contextItems(
  items: readonly AuthoredContextItem[],
  ids: { workspace: string; package: string; pkgDir: string; createdAt: number; where: string },
): Promise<{ context: ContextItem[]; files: ServedFile[] }> {
  const context: ContextItem[] = [];
  const files: ServedFile[] = [];
  for (const item of items) {
    const createdAt = item.createdAt ?? ids.createdAt;
    const label = item.label ?? null;
    if (item.type === 'url') {
      const id = item.id ?? deriveId('ctx', ids.workspace, ids.package, 'url', item.url);
      context.push({ id, type: 'url', label, url: item.url, urlFetchedAt: item.fetchedAt ?? createdAt, createdAt });
      continue;
    }
    const id = item.id ?? deriveId('ctx', ids.workspace, ids.package, 'file', item.file);
    const found = await contextFile(ids.pkgDir, item.file, ids.where);
    const fileName = path.basename(item.file);
    const mimeType = item.mimeType ?? guessMimeType(fileName);
    context.push({ id, type: 'file', label, fileName, fileSize: found.size, mimeType, createdAt });
    files.push({ contextId: id, workspace: ids.workspace, path: found.path, fileName, mimeType });
  }
  return { context, files };
}

async function readVersionTexts(pkgDir: string, source: VersionSource) {
  const where = path.join(pkgDir, source.entry);
  if (!source.isFolder) {
    return { where, content: authoredText(await fs.readFile(where, 'utf8')), meta: undefined as VersionMeta | undefined };
  }
  const present = new Set<string>();
  for (const entry of await fs.readdir(where, { withFileTypes: true })) {
    if (entry.isFile()) present.add(entry.name);
    if (!VERSION_FILES.has(entry.name) && !entry.name.startsWith('.')) {
      throw new ConfigError(`Unexpected ${entry.isDirectory() ? 'folder' : 'file'} ${path.join(where, entry.name)}.`, {
        hint: `A version folder holds ${[...VERSION_FILES].join(', ')}; context files belong in the package folder.`,
      });
    }
  }
  if (!present.has('content.md')) throw new ConfigError(`${where} has no content.md: every version needs its content.`);
  const content = await fs.readFile(path.join(where, 'content.md'), 'utf8');
  // Only files the listing showed are read: thousands of packages load without failed opens.
  const optional = async (name: string) =>
    present.has(name) ? authoredText(await fs.readFile(path.join(where, name), 'utf8')) : undefined;
  return {
    where,
    content: authoredText(content),
    systemPrompt: await optional('system.md'),
    critiquePrompt: await optional('critique.md'),
    description: await optional('description.md'),
    meta: present.has('prompt.json') ? await readJson(path.join(where, 'prompt.json'), versionMetaSchema) : undefined,
  };
}

/** Turns a slug into a readable default title: `support-reply` → `Support reply`. */
function titleFromSlug(slug: string): string {
  const words = slug.replace(/-+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * Reads `pkgDir` into its versions. Throws `ConfigError` naming the file for anything malformed.
 * Returns the folders read, so a watcher can follow them.
 */
export async function readAuthoredPackage(
  pkgDir: string,
  workspace: string,
  pkg: string,
): Promise<{ versions: LoadedVersion[]; dirs: string[] }> {
  const entries = await fs.readdir(pkgDir, { withFileTypes: true });
  const sources = versionSources(entries, pkgDir);
  const dirs = [pkgDir, ...sources.filter((s) => s.isFolder).map((s) => path.join(pkgDir, s.entry))];
  const files = new Set(entries.filter((e) => e.isFile()).map((e) => e.name));
  const meta: PackageMeta =
    (files.has('prompt.json') ? await readJson(path.join(pkgDir, 'prompt.json'), packageMetaSchema) : undefined) ?? {};
  const sharedDescription = files.has('description.md') ? await readIfExists(path.join(pkgDir, 'description.md')) : undefined;
  if (sources.length === 0) {
    throw new ConfigError(`${pkgDir} has no versions.`, { hint: 'Add v1/content.md (or v1.md), or draft/content.md.' });
  }
  const id = meta.id ?? deriveId('pmt', workspace, pkg);
  const packageCreatedAt = meta.createdAt ?? deriveCreatedAt(workspace, pkg);
  const highest = sources[sources.length - 1]!.number;
  const versions: LoadedVersion[] = [];
  for (const source of sources) {
    const texts = await readVersionTexts(pkgDir, source);
    const own = texts.meta ?? {};
    const createdAt = own.createdAt ?? versionCreatedAt(packageCreatedAt, source.number === 0 ? undefined : source.number, highest);
    const version = `v${source.number}`;
    const critique = 'critiquePrompt' in texts ? texts.critiquePrompt : undefined;
    const { context, files } = await contextItems(own.context ?? meta.context ?? [], {
      workspace,
      package: pkg,
      pkgDir,
      createdAt,
      where: own.context ? path.join(texts.where, 'prompt.json') : path.join(pkgDir, 'prompt.json'),
    });
    const prompt: Prompt = {
      id,
      title: own.title ?? meta.title ?? titleFromSlug(pkg),
      description:
        'description' in texts && texts.description !== undefined
          ? texts.description
          : own.description !== undefined
            ? own.description
            : (meta.description ?? (sharedDescription === undefined ? null : authoredText(sharedDescription))),
      category: own.category !== undefined ? own.category : (meta.category ?? null),
      tags: own.tags ?? meta.tags ?? [],
      version,
      workspaceSlug: workspace,
      packageName: formatPackageName({ workspace, package: pkg, selector: version as Selector }),
      content: texts.content,
      systemPrompt: ('systemPrompt' in texts ? texts.systemPrompt : undefined) ?? null,
      // The hosted service's own example omits critiquePrompt; do the same when there is none.
      ...(critique === undefined ? {} : { critiquePrompt: critique }),
      context,
      metadata: { createdAt },
    };
    versions.push({ number: source.number, prompt, files });
  }
  for (const file of versions.flatMap((v) => v.files)) {
    const folder = path.dirname(file.path);
    if (!dirs.includes(folder)) dirs.push(folder);
  }
  return { versions, dirs };
}
