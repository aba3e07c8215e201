// Stdout for commands, in a module of its own: a command that opens no ledger (contract check)
// then loads none of the ledger's modules (src/cli/context.ts re-exports it for the others).
import {asciiJson, asciiText, symbolSetFor} from '../core/symbols.ts';

/** Writes to stdout, leaving the process to exit once it is flushed. */
export function out(text: string): void {
	process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}

/** Whether this terminal gets ASCII symbols (LANG=C, LC_ALL=C, TERM=dumb: src/core/symbols.ts). */
export function isAsciiTerminal(): boolean {
	return symbolSetFor(process.env) === 'ascii';
}

/** Writes text for a person: symbols in the form the locale and terminal can show (src/core/symbols.ts). */
export function outText(text: string): void {
	out(isAsciiTerminal() ? asciiText(text) : text);
}

/** Writes JSON: under an ASCII locale, every other character as a `\uXXXX` escape (the same JSON). */
export function outJson(json: string): void {
	out(isAsciiTerminal() ? asciiJson(json) : json);
}
