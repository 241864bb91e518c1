export type { Variable } from './list-variables.js';
export { listVariables, TemplateError } from './list-variables.js';
export type { Segment, VariableType } from './parse-template.js';
export { parseTemplate } from './parse-template.js';
export { renderTemplate, stringifyValue } from './render-template.js';
