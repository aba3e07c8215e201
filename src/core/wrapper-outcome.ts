/** Exit code when the child could not be spawned (as a shell says "command not found"). */
export const SPAWN_FAILED_EXIT = 127;
/** Exit code when the run went over its token budget. */
export const OVER_BUDGET_EXIT = 125;
/** Exit code for `--no-wait` when every slot is held (EX_TEMPFAIL). */
export const NO_SLOT_EXIT = 75;

/** Signal numbers of the signals a wrapped run can end by (Linux numbering). */
export const SIGNAL_NUMBERS: Readonly<Record<string, number>> = {
	SIGHUP: 1,
	SIGINT: 2,
	SIGQUIT: 3,
	SIGILL: 4,
	SIGTRAP: 5,
	SIGABRT: 6,
	SIGBUS: 7,
	SIGFPE: 8,
	SIGKILL: 9,
	SIGUSR1: 10,
	SIGSEGV: 11,
	SIGUSR2: 12,
	SIGPIPE: 13,
	SIGALRM: 14,
	SIGTERM: 15,
	SIGXCPU: 24,
	SIGXFSZ: 25,
};

/** How a wrapped child ended, as the wrapper saw it. */
export type ChildEnding = {
	/** The spawn itself failed (no such file, not executable): the error text. */
	readonly spawnError: string | null;
	readonly exitCode: number | null;
	/** The signal that killed the child, when one did. */
	readonly signal: string | null;
	/** A terminating signal the wrapper itself received and forwarded (SIGTERM, SIGHUP, SIGQUIT). */
	readonly receivedSignal: string | null;
	/** `controlroom stop` asked for this task to stop (the signal it sent). */
	readonly stopRequested: string | null;
	/** The wrapper stopped the child because its known token total passed the budget. */
	readonly overBudget: boolean;
};

/** What the wrapper records and the exit code it returns. */
export type WrapperOutcome =
	| {readonly kind: 'failed-to-spawn'; readonly exitCode: number; readonly error: string}
	| {readonly kind: 'over-budget'; readonly exitCode: number; readonly signal: string | null}
	| {readonly kind: 'stopped'; readonly exitCode: number; readonly signal: string; readonly reason: string}
	| {readonly kind: 'exited'; readonly exitCode: number};

/**
 * The signal a shell's exit status reports: a POSIX shell exits 128+N when the command it ran last
 * was killed by signal N (`sh -c 'kill -TERM $$'` under `sh -c` exits 143). Null for any other
 * status, or a number that is no signal a run can end by.
 */
export function signalOfShellStatus(status: number | null): string | null {
	if (status === null || status <= 128) return null;
	const found = Object.entries(SIGNAL_NUMBERS).find(([, number]) => 128 + number === status);
	return found?.[0] ?? null;
}

/** 128+N for signal N; an unknown signal name maps to 128+15 rather than guessing a smaller code. */
export function signalExitCode(signal: string): number {
	return 128 + (SIGNAL_NUMBERS[signal] ?? SIGNAL_NUMBERS['SIGTERM'] ?? 15);
}

/**
 * Maps how a child ended to the wrapper's record and exit code (docs/wrapper.md, "Exit codes"): the child's own
 * code; 127 on spawn failure; 125 over budget; 128+N when stopped by signal N. A stop the wrapper
 * or `controlroom stop` asked for wins over how the child chose to exit after it.
 */
export function wrapperOutcome(ending: ChildEnding): WrapperOutcome {
	if (ending.spawnError !== null) return {kind: 'failed-to-spawn', exitCode: SPAWN_FAILED_EXIT, error: ending.spawnError};
	if (ending.overBudget) return {kind: 'over-budget', exitCode: OVER_BUDGET_EXIT, signal: ending.signal};
	const asked = ending.receivedSignal ?? ending.stopRequested;
	if (asked !== null) {
		const signal = ending.signal ?? asked;
		const reason =
			ending.receivedSignal !== null ? `wrapper received ${ending.receivedSignal}` : 'stop requested (controlroom stop)';
		return {kind: 'stopped', exitCode: signalExitCode(ending.receivedSignal ?? signal), signal, reason};
	}
	if (ending.signal !== null) {
		return {
			kind: 'stopped',
			exitCode: signalExitCode(ending.signal),
			signal: ending.signal,
			reason: `child killed by ${ending.signal}`,
		};
	}
	return {kind: 'exited', exitCode: ending.exitCode ?? 1};
}
