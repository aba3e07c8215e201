import {useEffect, useMemo, type ReactNode} from 'react';
import {ClockContext, type Clock} from '../hooks/use-clock.ts';

type Props = {
	/** How often relative times ("last seen 2m ago") may move on, in ms. */
	readonly intervalMs: number;
	/** Where the time comes from; Date.now unless a caller pins it. */
	readonly time?: () => number;
	readonly children: ReactNode;
};

/**
 * The board's one clock: a single timer whose ticks go to subscribers, not to React state, so a
 * tick that changes nothing on screen renders nothing.
 */
export function ClockProvider({intervalMs, time = Date.now, children}: Props) {
	const clock = useMemo(() => {
		const listeners = new Set<(now: number) => void>();
		const value: Clock & {tick(): void} = {
			now: time,
			subscribe(listener) {
				listeners.add(listener);
				return () => listeners.delete(listener);
			},
			tick() {
				const now = time();
				for (const listener of listeners) listener(now);
			},
		};
		return value;
	}, [time]);
	useEffect(() => {
		const timer = setInterval(() => clock.tick(), intervalMs);
		return () => clearInterval(timer);
	}, [clock, intervalMs]);
	return <ClockContext.Provider value={clock}>{children}</ClockContext.Provider>;
}
