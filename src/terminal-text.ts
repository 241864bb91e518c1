/**
 * Text that came from outside (the service, a served folder, a request) made safe to print: no
 * escape sequences (screen clears, cursor moves, window titles), no carriage returns that
 * overwrite a line, no other control characters or direction overrides, and no workflow command
 * for the CI system reading the log. Every printer (the CLI's logger, the bundler plugin's log,
 * `serve`'s access log) passes every line through `terminalText`; text from outside that goes
 * inside a message is made one line first (`oneLine`), so it cannot fake a line of its own.
 * docs/security.md, "Text from outside in logs".
 */

/** CSI (`ESC [ … final`, or the 8-bit `\x9b`), OSC (`ESC ] … BEL|ST`), DCS/SOS/PM/APC strings, two-byte escapes. */
const SEQUENCE =
  /\x1b\[[0-?]*[ -/]*[@-~]?|\x9b[0-?]*[ -/]*[@-~]?|(?:\x1b\]|\x9d)[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?|(?:\x1b[PX^_]|[\x90\x98\x9e\x9f])[^\x1b\x9c]*(?:\x1b\\|\x9c)?|\x1b[ -~]?/g;

/** A colour (SGR) sequence, the only kind the CLI itself prints inside a line. */
const SGR = /^\x1b\[[0-9;]*m$/;

/** Every other control character but tab and newline, DEL, C1, line/paragraph separators, bidi controls. */
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const ANY = new RegExp(`${SEQUENCE.source}|${CONTROL.source}`, 'g');

/**
 * What GitHub Actions runs as a workflow command when a process prints it (`::add-mask::…`,
 * `::error::…`, `::stop-commands::…`): a line whose first characters after blanks are `::`, or
 * the older `##[command]` anywhere in a line. Written `\::` and `##\[`, which it ignores.
 */
const WORKFLOW_COMMAND = /^([^\S\n]*)::|##\[/gm;

function defuseCommands(text: string, keepLineStart: boolean): string {
  // Most lines hold neither: one test before the replace.
  if (!text.includes('::') && !text.includes('##[')) return text;
  return text.replace(WORKFLOW_COMMAND, (found, blanks: string | undefined) =>
    blanks === undefined ? '##\\[' : keepLineStart ? found : `${blanks}\\::`,
  );
}

/**
 * `text` without escape sequences and control characters (tab and newline stay), and with no line
 * a CI system would run as a workflow command. With `keepColors`, colour sequences stay: for lines
 * that carry the CLI's own colours. `workflowCommand`: the text is one of the CLI's own workflow
 * commands (`check --format github`), whose fields src/cli/github.ts escaped: its `::` stays.
 */
export function terminalText(text: string, options: { keepColors?: boolean; workflowCommand?: boolean } = {}): string {
  // One pass: a kept colour sequence must not lose its ESC to the control-character rule.
  const clean = text.replace(ANY, (found) => (options.keepColors && SGR.test(found) ? found : ''));
  return defuseCommands(clean, options.workflowCommand === true);
}

/** Line breaks of every kind: a text from outside inside a message shows them as `\n`. */
const LINE_BREAKS = /\r\n|[\r\n\u2028\u2029\u0085]/g;

/**
 * Text from outside (a service's message, a variable name, a field's key) to be put inside a line
 * of the CLI's own: on one line, its line breaks shown as `\n`, then cleaned as `terminalText`
 * cleans, so it can neither fake a line of the CLI nor start one.
 */
export function oneLine(text: string): string {
  return terminalText(text.replace(LINE_BREAKS, '\\n'));
}

/**
 * A JSON document with the characters JSON leaves raw but terminals act on written as `\uXXXX`,
 * and `[` after `##` too (`##\u005b`), so no line of it is a workflow command. The document means
 * the same.
 */
export function terminalJson(json: string): string {
  return json
    .replace(/[\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .replaceAll('##[', '##\\u005b');
}
