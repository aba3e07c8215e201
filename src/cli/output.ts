// Stdout for commands, in a module of its own: a command that opens no ledger (contract check)
// then loads none of the ledger's modules (src/cli/context.ts re-exports it for the others).

/** Writes to stdout, leaving the process to exit once it is flushed. */
export function out(text: string): void {
	process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}
