export { variableNameRule } from './grammar.js';
export type { PlaceholderReading, Variable } from './list-variables.js';
export { listVariables, readTexts, TemplateError } from './list-variables.js';
export type { Segment, VariableType } from './parse-template.js';
export { parseTemplate, TYPE_HINT_NAMES } from './parse-template.js';
export { renderTemplate, stringifyValue } from './render-template.js';
