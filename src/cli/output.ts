// Everything the satgate command prints goes through here. Wallet names, KYC descriptions, partner and key labels,
// webhook targets and the error texts of remote servers are chosen by merchants, partners and strangers; printed
// raw, an ESC sequence recolours or hides text, an OSC 8 sequence disguises a link, a CR or BS overwrites what came
// before and BEL rings. So every C0 and C1 control character and DEL is shown as visible `\xHH` text; only the
// newlines of text the CLI composed itself stay newlines. JSON output stays exact JSON (a parser reads the same
// values), with DEL and C1 written as `\u` escapes, which JSON.stringify leaves raw.

import { Transform, type Writable } from 'node:stream';

const CONTROLS = /[\u0000-\u001f\u007f-\u009f]/g;
const CONTROLS_BUT_NEWLINE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/g;

const hex = (c: string) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`;

/** `text` with every C0 and C1 control character and DEL shown as `\xHH`; newlines too unless `keepNewlines`. */
export function escapeControls(text: string, keepNewlines = false): string {
  return text.replace(keepNewlines ? CONTROLS_BUT_NEWLINE : CONTROLS, hex);
}

/** A line from a template: the literal parts are the CLI's own text, every interpolated value is escaped whole. */
function line(strings: TemplateStringsArray, values: unknown[]): string {
  let out = escapeControls(strings[0]!, true);
  for (let i = 0; i < values.length; i++) out += escapeControls(String(values[i])) + escapeControls(strings[i + 1]!, true);
  return `${out}\n`;
}

/** Prints a line to stdout: `` say`${a}  ${b}` ``; a value's newlines and other controls are shown escaped. */
export function say(strings: TemplateStringsArray, ...values: unknown[]): void {
  process.stdout.write(line(strings, values));
}

/** Prints a line to stderr, like `say`. */
export function warn(strings: TemplateStringsArray, ...values: unknown[]): void {
  process.stderr.write(line(strings, values));
}

/** Prints text the CLI composed (help, a report of several lines) to stdout: newlines stay, other controls are escaped. */
export function sayText(text: string): void {
  process.stdout.write(`${escapeControls(text, true)}\n`);
}

/** Prints composed text to stderr, like `sayText`. */
export function warnText(text: string): void {
  process.stderr.write(`${escapeControls(text, true)}\n`);
}

/** Prints `value` as JSON (`--json`): the same values for a parser, no raw control character for a terminal. */
export function sayJson(value: unknown, indent?: number): void {
  const json = JSON.stringify(value, null, indent) ?? 'null';
  process.stdout.write(`${json.replace(/[\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}\n`);
}

/**
 * Where an export's data goes when no file is named: stdout with the exact bytes when it is a pipe or a file (what a
 * spreadsheet or script reads), and on a terminal the same text with its controls shown escaped, like `sayText`
 * (CRLF line ends shown as newlines), since a shop's order reference can hold an escape sequence.
 */
export function exportStream(): Writable {
  if (!process.stdout.isTTY) return process.stdout;
  const shown = new Transform({
    transform(chunk: Buffer | string, _encoding, done) {
      done(null, escapeControls(String(chunk).replaceAll('\r\n', '\n'), true));
    },
  });
  shown.pipe(process.stdout);
  return shown;
}

/** A progress line on stderr, redrawn in place; callers show it on a terminal only. */
export function progressLine(text: string): void {
  process.stderr.write(`\r${escapeControls(text)}`);
}

/** Clears the progress line. */
export function clearProgressLine(): void {
  process.stderr.write('\r\x1b[K');
}
