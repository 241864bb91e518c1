/**
 * What the CLI says to GitHub Actions (docs/ci.md): workflow
 * commands (`::error file=…,line=…::…`) on stdout, step outputs in the `GITHUB_OUTPUT` file and a
 * job summary in the `GITHUB_STEP_SUMMARY` file. Text from the service reaches a workflow command
 * only through `escapeData`/`escapeProperty`, as the workflow-command format requires (docs/ci.md).
 */
import { randomBytes } from 'node:crypto';
import { appendFile } from 'node:fs/promises';

/** A message of a workflow command: `%`, CR and LF are percent-encoded, so a text cannot end the command. */
export function escapeData(text: string): string {
  return text.replaceAll('%', '%25').replaceAll('\r', '%0D').replaceAll('\n', '%0A');
}

/** A property value (`file=`, `title=`): also `:` and `,`, which would end the value. */
export function escapeProperty(text: string): string {
  return escapeData(text).replaceAll(':', '%3A').replaceAll(',', '%2C');
}

export interface Annotation {
  level: 'error' | 'warning' | 'notice';
  /** Relative to the repository root, `/`-separated. */
  file?: string;
  line?: number;
  title: string;
  message: string;
}

/** `::error file=prompts.lock.json,line=12,title=promptlock::message`. */
export function annotation(a: Annotation): string {
  const props = [
    ...(a.file !== undefined ? [`file=${escapeProperty(a.file)}`] : []),
    ...(a.line !== undefined ? [`line=${a.line}`] : []),
    `title=${escapeProperty(a.title)}`,
  ];
  return `::${a.level} ${props.join(',')}::${escapeData(a.message)}`;
}

/**
 * Appends step outputs to the file `GITHUB_OUTPUT` names. Every value is written in the
 * delimited form with a random delimiter, so no value (a title, whatever it holds) can set
 * another output.
 */
export async function writeStepOutputs(file: string, values: Readonly<Record<string, string>>): Promise<void> {
  let text = '';
  for (const [name, value] of Object.entries(values)) {
    const delimiter = `promptlock_${randomBytes(12).toString('hex')}`;
    text += `${name}<<${delimiter}\n${value}\n${delimiter}\n`;
  }
  await appendFile(file, text);
}

/** Appends markdown to the job summary (`GITHUB_STEP_SUMMARY`). */
export async function writeStepSummary(file: string, markdown: string): Promise<void> {
  await appendFile(file, markdown.endsWith('\n') ? markdown : `${markdown}\n`);
}
