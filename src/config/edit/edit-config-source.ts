import type { ArrayLiteralExpression, ObjectLiteralExpression, SourceFile } from 'ts-morph';
import { ConfigError } from '../../errors.js';
import { findConfigObject, findPromptsArray } from './find-config-object.js';
import { insertListItem, insertListItemBefore, type LayoutHints, type ListShape, removeListItem } from './list-edits.js';
import { type PromptEdit, planAdd, planRemove } from './plan-prompt-edit.js';
import { applyEdits, indentUnit, newlineOf, skipTrivia } from './text-scan.js';

type TsMorph = typeof import('ts-morph');

/** The edited text of a config module, and what changed. */
export interface SourceEdit {
  text: string;
  edit: Omit<PromptEdit, 'configPath'>;
}

interface ConfigSource {
  tm: TsMorph;
  sourceFile: SourceFile;
  config: ObjectLiteralExpression;
  prompts: ArrayLiteralExpression | undefined;
}

async function parseConfigSource(text: string, fileName: string, where: string): Promise<ConfigSource> {
  // ts-morph is large; only add/remove need it, so it is loaded on first use.
  const tm = await import('ts-morph');
  const project = new tm.Project({ useInMemoryFileSystem: true, compilerOptions: { allowJs: true } });
  const sourceFile = project.createSourceFile(fileName, text);
  const config = findConfigObject(tm, sourceFile, where);
  return { tm, sourceFile, config, prompts: findPromptsArray(tm, config, where) };
}

function shapeOf(
  node: ArrayLiteralExpression | ObjectLiteralExpression,
  items: readonly { getStart(): number; getEnd(): number }[],
): ListShape {
  return {
    open: node.getStart(),
    close: node.getEnd() - 1,
    items: items.map((item) => ({ start: item.getStart(), end: item.getEnd() })),
  };
}

/** The string entries of the list, index-aligned with its elements (undefined for the rest). */
function entriesOf(tm: TsMorph, prompts: ArrayLiteralExpression | undefined): (string | undefined)[] {
  return (prompts?.getElements() ?? []).map((element) =>
    tm.Node.isStringLiteral(element) || tm.Node.isNoSubstitutionTemplateLiteral(element) ? element.getLiteralText() : undefined,
  );
}

/** The quote the list (else the file) uses for strings; single quotes when there is none. */
function quoteOf(tm: TsMorph, source: ConfigSource): string {
  const sample =
    source.prompts?.getElements().find((element) => tm.Node.isStringLiteral(element)) ??
    source.sourceFile.getFirstDescendantByKind(tm.SyntaxKind.StringLiteral);
  return sample?.getText().startsWith('"') ? '"' : "'";
}

function layoutHints(text: string, source: ConfigSource): LayoutHints {
  const properties = source.config.getProperties();
  const last = properties[properties.length - 1];
  // A new multi-line list follows the config object's own habit about trailing commas.
  const trailingComma = last === undefined || text[skipTrivia(text, last.getEnd())] === ',';
  return { newline: newlineOf(text), indentUnit: indentUnit(text), trailingComma, padding: '' };
}

/** Adds `name` to the prompts list of a config module's source (see `planAdd`). */
export async function addPromptToSource(text: string, fileName: string, name: string, where: string): Promise<SourceEdit> {
  const source = await parseConfigSource(text, fileName, where);
  const { tm, prompts, config } = source;
  const entries = entriesOf(tm, prompts);
  const plan = planAdd(entries, name, where);
  if (plan.kind === 'unchanged') return { text, edit: { changed: false, action: 'unchanged', entry: name } };
  if (plan.kind === 'replace') {
    const element = prompts!.getElements()[plan.index]!;
    const quote = element.getText()[0]!;
    const edited = applyEdits(text, [{ start: element.getStart(), end: element.getEnd(), text: `${quote}${name}${quote}` }]);
    return { text: edited, edit: { changed: true, action: 'replaced', entry: name, previous: plan.previous } };
  }
  const quote = quoteOf(tm, source);
  const hints = layoutHints(text, source);
  const edits = prompts
    ? plan.kind === 'insert'
      ? insertListItemBefore(text, shapeOf(prompts, prompts.getElements()), plan.index, `${quote}${name}${quote}`, hints.newline)
      : insertListItem(text, shapeOf(prompts, prompts.getElements()), `${quote}${name}${quote}`, hints)
    : insertListItem(text, shapeOf(config, config.getProperties()), `prompts: [${quote}${name}${quote}]`, {
        ...hints,
        padding: ' ',
      });
  return { text: applyEdits(text, edits), edit: { changed: true, action: 'added', entry: name } };
}

/** Removes `name` from the prompts list of a config module's source (see `planRemove`). */
export async function removePromptFromSource(text: string, fileName: string, name: string, where: string): Promise<SourceEdit> {
  const { tm, prompts } = await parseConfigSource(text, fileName, where);
  if (!prompts) {
    throw new ConfigError(`${where} has no prompts option, so "${name}" is not in it.`, {
      hint: 'Without a prompts option every prompt the service lists is locked; name the ones you want with promptlock add <name>.',
    });
  }
  const { index, entry } = planRemove(entriesOf(tm, prompts), name, where);
  const edits = removeListItem(text, shapeOf(prompts, prompts.getElements()), index);
  return { text: applyEdits(text, edits), edit: { changed: true, action: 'removed', entry } };
}
