/**
 * Text that came from outside (the service, a served folder, a request) made safe to print: no
 * escape sequences (screen clears, cursor moves, window titles), no carriage returns that
 * overwrite a line, no other control characters or direction overrides. docs/security.md.
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
 * `text` without escape sequences and control characters (tab and newline stay). With
 * `keepColors`, colour sequences stay: for lines that carry the CLI's own colours.
 */
export function terminalText(text: string, options: { keepColors?: boolean } = {}): string {
  // One pass: a kept colour sequence must not lose its ESC to the control-character rule.
  return text.replace(ANY, (found) => (options.keepColors && SGR.test(found) ? found : ''));
}

/** A JSON document with the characters JSON leaves raw but terminals act on written as `\uXXXX`. */
export function terminalJson(json: string): string {
  return json.replace(/[\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
