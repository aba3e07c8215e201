/** An error the user caused or can fix: printed as one line, with its exit code, never a stack. */
export class CliError extends Error {
	readonly exitCode: number;
	constructor(message: string, exitCode = 1) {
		super(message);
		this.name = 'CliError';
		this.exitCode = exitCode;
	}
}

/** Exit code for a command line that does not parse (EX_USAGE). */
export const USAGE_EXIT = 64;
