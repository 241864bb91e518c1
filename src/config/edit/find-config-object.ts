import type { ArrayLiteralExpression, Expression, Node, ObjectLiteralExpression, SourceFile } from 'ts-morph';
import { ConfigError } from '../../errors.js';

type TsMorph = typeof import('ts-morph');

const BY_HAND_HINT = 'Edit its prompts list by hand.';

/**
 * Follows an exported expression to the config object: through parentheses, `satisfies`/`as`,
 * the `defineConfig(...)` call and a local `const config = …`.
 */
function unwrap(tm: TsMorph, sourceFile: SourceFile, start: Node): ObjectLiteralExpression | undefined {
  let node: Node | undefined = start;
  for (let depth = 0; node && depth < 10; depth++) {
    if (tm.Node.isObjectLiteralExpression(node)) return node;
    if (
      tm.Node.isParenthesizedExpression(node) ||
      tm.Node.isSatisfiesExpression(node) ||
      tm.Node.isAsExpression(node) ||
      tm.Node.isTypeAssertion(node) ||
      tm.Node.isNonNullExpression(node)
    ) {
      node = node.getExpression();
    } else if (tm.Node.isCallExpression(node)) {
      node = node.getArguments()[0];
    } else if (tm.Node.isIdentifier(node)) {
      node = sourceFile.getVariableDeclaration(node.getText())?.getInitializer();
    } else {
      return undefined;
    }
  }
  return undefined;
}

/** The expression the file exports: `export default …`, `export = …` or `module.exports = …`. */
function exportedExpression(tm: TsMorph, sourceFile: SourceFile): Expression | undefined {
  const assignment = sourceFile.getExportAssignments()[0];
  if (assignment) return assignment.getExpression();
  for (const statement of sourceFile.getStatements()) {
    if (!tm.Node.isExpressionStatement(statement)) continue;
    const expression = statement.getExpression();
    if (tm.Node.isBinaryExpression(expression) && expression.getLeft().getText() === 'module.exports') {
      return expression.getRight();
    }
  }
  return undefined;
}

/** The object literal holding the config options, or a ConfigError naming the file. */
export function findConfigObject(tm: TsMorph, sourceFile: SourceFile, where: string): ObjectLiteralExpression {
  const exported = exportedExpression(tm, sourceFile);
  const found = exported && unwrap(tm, sourceFile, exported);
  if (found) return found;
  const call = sourceFile
    .getDescendantsOfKind(tm.SyntaxKind.CallExpression)
    .find((node) => node.getExpression().getText() === 'defineConfig');
  const argument = call?.getArguments()[0];
  if (argument && tm.Node.isObjectLiteralExpression(argument)) return argument;
  throw new ConfigError(`Cannot find the config object in ${where}.`, {
    hint: `promptlock edits the object passed to defineConfig(…) or the object literal exported by default. ${BY_HAND_HINT}`,
  });
}

/**
 * The `prompts` array of the config object; undefined when there is no such property. A
 * `prompts` that is not an array literal (a variable, a call) cannot be edited safely.
 */
export function findPromptsArray(tm: TsMorph, config: ObjectLiteralExpression, where: string): ArrayLiteralExpression | undefined {
  for (const property of config.getProperties()) {
    if (tm.Node.isShorthandPropertyAssignment(property) && property.getName() === 'prompts') {
      throw new ConfigError(`The prompts option in ${where} is a variable, not a list promptlock can edit.`, {
        hint: BY_HAND_HINT,
      });
    }
    if (!tm.Node.isPropertyAssignment(property)) continue;
    const nameNode = property.getNameNode();
    const name = tm.Node.isStringLiteral(nameNode) ? nameNode.getLiteralText() : nameNode.getText();
    if (name !== 'prompts') continue;
    let value: Node | undefined = property.getInitializer();
    while (value && (tm.Node.isAsExpression(value) || tm.Node.isSatisfiesExpression(value) || tm.Node.isParenthesizedExpression(value))) {
      value = value.getExpression();
    }
    if (value && tm.Node.isArrayLiteralExpression(value)) return value;
    throw new ConfigError(`The prompts option in ${where} is not a list literal promptlock can edit.`, {
      hint: BY_HAND_HINT,
    });
  }
  return undefined;
}
