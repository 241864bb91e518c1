/**
 * templates/runtime.ts read by the TypeScript parser into the pieces a module copies: each
 * interface with its JSDoc (`RenderedPrompt` member by member, so `omit` can leave members out) and
 * each helper as TypeScript and as JavaScript, without `export`. Done once, when promptlock is built
 * (tsup.config.ts bakes the result into dist/), and in tests from the file itself
 * (runtime-source.ts): the TypeScript compiler is never loaded by a `generate` of the built CLI.
 */
import type { ts as TypeScript } from 'ts-morph';

/** One member of an interface: its name (`[index]` for an index signature) and its text, JSDoc and indentation included. */
interface RuntimeMember {
  name: string;
  text: string;
}

export interface RuntimeInterface {
  name: string;
  /** The JSDoc and the declaration up to its `{`. */
  head: string;
  members: RuntimeMember[];
  /** From the last member to the closing `}`. */
  tail: string;
}

interface RuntimeHelper {
  name: string;
  /** The JSDoc and the function as TypeScript, without `export`. */
  ts: string;
  /** The same as JavaScript. */
  js: string;
}

export interface RuntimeDeclarations {
  interfaces: RuntimeInterface[];
  helpers: RuntimeHelper[];
}

/** Where a statement's own text starts: at its JSDoc (the last comment before it), else at the statement. */
function startOf(ts: typeof TypeScript, text: string, node: TypeScript.Node): number {
  const comments = ts.getLeadingCommentRanges(text, node.getFullStart()) ?? [];
  const doc = comments.at(-1);
  return doc && text.startsWith('/**', doc.pos) ? doc.pos : node.getStart();
}

function helper(ts: typeof TypeScript, text: string, node: TypeScript.FunctionDeclaration): RuntimeHelper {
  const exported = node.modifiers?.find((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword);
  if (!node.name || !exported) throw new Error('templates/runtime.ts: every helper is an exported, named function');
  const start = startOf(ts, text, node);
  const code = text.slice(start, exported.getStart()) + text.slice(exported.getEnd() + 1, node.getEnd());
  const { outputText } = ts.transpileModule(code, {
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, removeComments: false },
  });
  // The helper alone is a script to the compiler, which marks it strict; a module already is.
  const js = outputText
    .replace(/\r\n/g, '\n')
    .replace(/^"use strict";\n/, '')
    .replace(/\n*export \{\};\s*$/, '')
    .trimEnd();
  return { name: node.name.text, ts: code, js };
}

function declaration(ts: typeof TypeScript, text: string, node: TypeScript.InterfaceDeclaration): RuntimeInterface {
  const start = startOf(ts, text, node);
  const open = node.members.pos;
  const members = node.members.map((member, i) => {
    const from = i === 0 ? open : node.members[i - 1]!.getEnd();
    const name = ts.isIndexSignatureDeclaration(member) ? '[index]' : (member.name as TypeScript.Identifier).text;
    return { name, text: text.slice(from, member.getEnd()) };
  });
  const last = node.members.at(-1)?.getEnd() ?? open;
  return { name: node.name.text, head: text.slice(start, open), members, tail: text.slice(last, node.getEnd()) };
}

/** The pieces of the runtime file's `text`, read with the compiler `ts` (ts-morph's). */
export function extractRuntime(ts: typeof TypeScript, fileText: string): RuntimeDeclarations {
  const text = fileText.replace(/\r\n/g, '\n');
  const file = ts.createSourceFile('runtime.ts', text, ts.ScriptTarget.Latest, true);
  const interfaces: RuntimeInterface[] = [];
  const helpers: RuntimeHelper[] = [];
  for (const statement of file.statements) {
    if (ts.isInterfaceDeclaration(statement)) interfaces.push(declaration(ts, text, statement));
    else if (ts.isFunctionDeclaration(statement)) helpers.push(helper(ts, text, statement));
    else throw new Error(`templates/runtime.ts: only interfaces and functions, found ${ts.SyntaxKind[statement.kind]}`);
  }
  return { interfaces, helpers };
}
