export { parseTemplate, lineColumn, TYPE_HINTS } from './parse-template.js';
export type { Placeholder, Segment, TextSegment, VariableType } from './parse-template.js';
export { listVariables, TemplateError } from './list-variables.js';
export type { LabeledText, Variable } from './list-variables.js';
export { renderTemplate, stringifyValue } from './render-template.js';
