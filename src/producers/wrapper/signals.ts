import type {StopTarget} from '../stop.ts';

/** Signals the wrapper forwards to the child's process group. */
const FORWARDED = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'] as const;
type Forwarded = (typeof FORWARDED)[number];
/** Signals that mean "end this run": forwarded, then escalated to SIGKILL after the grace period. SIGINT is only forwarded (an interactive agent uses it to interrupt a turn). */
const TERMINATING = new Set<Forwarded>(['SIGTERM', 'SIGHUP', 'SIGQUIT']);

/** The wrapper's signal handling for one run, from before admission until the run is recorded. */
export type SignalRelay = {
	/** Aborted by a signal that arrives before there is a child: the run ends before anything starts. */
	readonly abort: AbortSignal;
	/** The signal received, a terminating one remembered over an earlier SIGINT; null when none came. */
	received(): Forwarded | null;
	/** When that signal came (ms since the epoch), or null. */
	receivedAt(): number | null;
	/** From now on signals go to the child's group; one received before is passed on at once. */
	setTarget(target: StopTarget): void;
	/** Stops listening, and cancels a pending SIGKILL. */
	dispose(): void;
};

function forward(target: StopTarget, signal: NodeJS.Signals): void {
	try {
		process.kill(-(target.pgid ?? target.pid), signal);
	} catch {
		// The group is already gone: the exit is on its way.
	}
}

/**
 * Listens for SIGINT, SIGTERM, SIGHUP and SIGQUIT. Before the spawn one aborts the run; after it,
 * each is forwarded to the child's process group, and a terminating one is followed by SIGKILL
 * once `graceMs` has passed.
 */
export function relaySignals(graceMs: number): SignalRelay {
	const abort = new AbortController();
	let received: Forwarded | null = null;
	let receivedAt: number | null = null;
	let target: StopTarget | null = null;
	let escalation: NodeJS.Timeout | null = null;
	const onSignal = (signal: Forwarded): void => {
		// A terminating signal is remembered over an earlier SIGINT.
		if (TERMINATING.has(signal) || received === null) {
			received = signal;
			receivedAt = Date.now();
		}
		const victim = target;
		if (!victim) {
			// Still waiting for a slot (or about to spawn): end the run before anything starts.
			abort.abort();
			return;
		}
		forward(victim, signal);
		if (TERMINATING.has(signal) && !escalation) escalation = setTimeout(() => forward(victim, 'SIGKILL'), graceMs);
	};
	const handlers = FORWARDED.map(signal => {
		const handler = (): void => onSignal(signal);
		process.on(signal, handler);
		return () => process.off(signal, handler);
	});
	return {
		abort: abort.signal,
		received: () => received,
		receivedAt: () => receivedAt,
		setTarget(value) {
			target = value;
			if (received) onSignal(received);
		},
		dispose() {
			if (escalation) clearTimeout(escalation);
			for (const off of handlers) off();
		},
	};
}
