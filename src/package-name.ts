/** Package names: `@<workspace>/<package>[:<version>]` (docs/service-interface.md, "Package names and versions"). */

const PACKAGE_NAME_PATTERN = /^@([a-z0-9-]+)\/([a-z0-9-]+)(?::(v\d+|latest|draft))?$/;
const SLUG_PATTERN = /^[a-z0-9-]+$/;

/** `vN`, `latest`, `draft`; `undefined` when the name carries no selector. */
export type Selector = `v${number}` | 'latest' | 'draft';

export interface PackageName {
  workspace: string;
  package: string;
  selector: Selector | undefined;
}

export function parsePackageName(text: string): PackageName | undefined {
  const match = PACKAGE_NAME_PATTERN.exec(text);
  if (!match) return undefined;
  return { workspace: match[1]!, package: match[2]!, selector: match[3] as Selector | undefined };
}

export function isSlug(text: string): boolean {
  return SLUG_PATTERN.test(text);
}

export function isSelector(text: string): text is Selector {
  return text === 'latest' || text === 'draft' || /^v\d+$/.test(text);
}

/** `@ws/pkg` without the selector: the key prompts are locked and generated under. */
export function basePackageName(name: Pick<PackageName, 'workspace' | 'package'>): string {
  return `@${name.workspace}/${name.package}`;
}

export function formatPackageName(name: PackageName): string {
  return name.selector ? `${basePackageName(name)}:${name.selector}` : basePackageName(name);
}

/** Published versions are `v1`…; `v0` is the draft. Returns the number, or undefined. */
export function versionNumber(version: string): number | undefined {
  const match = /^v(\d+)$/.exec(version);
  return match ? Number(match[1]) : undefined;
}

/**
 * How a get answer may name its prompt (docs/service-interface.md): a bare slug (`support-reply`,
 * as the service's own SDK composes names), `@ws/pkg`, or `@ws/pkg:<version>`. The workspace is
 * undefined for a bare slug.
 */
export function parseAnsweredName(
  text: string,
): { workspace: string | undefined; package: string; selector: Selector | undefined } | undefined {
  if (isSlug(text)) return { workspace: undefined, package: text, selector: undefined };
  return parsePackageName(text);
}

/** What a get answer says about itself: its name, version and (optionally) workspace. */
export interface AnsweredIdentity {
  packageName: string;
  version: string;
  workspaceSlug?: unknown;
}

export type AnsweredNameCheck = { ok: true; name: string } | { ok: false; problem: string };

/**
 * The name to record for an answer to a get of `asked` (`@ws/pkg`, with or without selector):
 * always the name asked for, with the version the answer carries (`@ws/pkg:v4`). An answer naming
 * another workspace or package, or a version other than the one it carries, is refused, and the
 * problem names both sides.
 */
export function recordedName(asked: string, answer: AnsweredIdentity): AnsweredNameCheck {
  const want = parsePackageName(asked);
  if (!want) return { ok: false, problem: `${JSON.stringify(asked)} is not a package name` };
  const base = basePackageName(want);
  const said = JSON.stringify(answer.packageName);
  const got = typeof answer.packageName === 'string' ? parseAnsweredName(answer.packageName) : undefined;
  if (!got) return { ok: false, problem: `asked for ${base}, the service answered ${said}, which is not a package name` };
  if (got.package !== want.package || (got.workspace !== undefined && got.workspace !== want.workspace)) {
    return { ok: false, problem: `asked for ${base}, the service answered ${said}` };
  }
  if (typeof answer.workspaceSlug === 'string' && answer.workspaceSlug !== want.workspace) {
    return { ok: false, problem: `asked for ${base}, the service answered ${said} of workspace ${JSON.stringify(answer.workspaceSlug)}` };
  }
  if (got.selector !== undefined && versionNumber(got.selector) !== undefined && got.selector !== answer.version) {
    return { ok: false, problem: `asked for ${base}, the service answered ${said} carrying version ${JSON.stringify(answer.version)}` };
  }
  return { ok: true, name: `${base}:${answer.version}` };
}
