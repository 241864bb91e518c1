/**
 * How a JSON file is laid out, so a rewrite changes only the values we touched: the indentation
 * of its first indented line, its line ending, and whether it ends with a newline.
 */
export interface JsonStyle {
  indent: string;
  newline: '\n' | '\r\n';
  finalNewline: boolean;
}

export function detectJsonStyle(text: string): JsonStyle {
  const indent = /^[ \t]+(?=\S)/m.exec(text)?.[0] ?? '  ';
  return {
    indent,
    newline: text.includes('\r\n') ? '\r\n' : '\n',
    finalNewline: /\n$/.test(text),
  };
}

/** `JSON.stringify` in the given style. Key order is kept, as `JSON.parse` preserved it. */
export function stringifyJson(value: unknown, style: JsonStyle): string {
  const text = JSON.stringify(value, null, style.indent).replace(/\n/g, style.newline);
  return style.finalNewline ? `${text}${style.newline}` : text;
}
