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
