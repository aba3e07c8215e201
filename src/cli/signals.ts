// One convention for every command that runs until stopped (the board, the demo, reconcile, sync):
// ended by a signal, it finishes what it was doing, then exits 128 + the signal's number, as a
// shell reports an interrupted program: Ctrl-C (SIGINT) 130, SIGHUP 129, SIGTERM 143 (docs/cli.md).

/** The exit status after each signal a long-running command stops on. */
export const SIGNAL_EXITS = {SIGINT: 130, SIGHUP: 129, SIGTERM: 143} as const;
type StopSignal = keyof typeof SIGNAL_EXITS;

/** A loop's stop: aborted on the first signal; `exitCode` is that signal's status, or null while none came. */
export type SignalStop = {
	readonly signal: AbortSignal;
	exitCode(): number | null;
	dispose(): void;
};

/** Listens for SIGINT, SIGHUP and SIGTERM until disposed. */
export function stopOnSignals(): SignalStop {
	const stopping = new AbortController();
	let received: StopSignal | null = null;
	const handlers = (Object.keys(SIGNAL_EXITS) as StopSignal[]).map(name => {
		const handler = (): void => {
			received ??= name;
			stopping.abort();
		};
		process.on(name, handler);
		return [name, handler] as const;
	});
	return {
		signal: stopping.signal,
		exitCode: () => (received === null ? null : SIGNAL_EXITS[received]),
		dispose: () => {
			for (const [name, handler] of handlers) process.off(name, handler);
		},
	};
}
