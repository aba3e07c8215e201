/** Size used when the output is not a terminal (a pipe, a test's fake stdout). */
export const FALLBACK_SIZE = {width: 100, height: 30} as const;

/** A terminal's columns and rows. */
export type TerminalSize = {readonly width: number; readonly height: number};

/** The columns and rows of `stdout`, or the fallback where it has none. */
export function terminalSizeOf(stdout: Pick<NodeJS.WriteStream, 'columns' | 'rows'>): TerminalSize {
	return {width: stdout.columns || FALLBACK_SIZE.width, height: stdout.rows || FALLBACK_SIZE.height};
}
