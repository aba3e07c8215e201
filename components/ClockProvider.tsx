import {useEffect, useState, type ReactNode} from 'react';
import {ClockContext} from '../hooks/use-clock.ts';

type Props = {
	/** How often relative times ("last seen 2m ago") move on, in ms. */
	readonly intervalMs: number;
	/** Where the time comes from; Date.now unless a caller pins it. */
	readonly clock?: () => number;
	readonly children: ReactNode;
};

/** The board's one clock: a single timer every "ago" label and health derivation reads. */
export function ClockProvider({intervalMs, clock = Date.now, children}: Props) {
	const [now, setNow] = useState(clock);
	useEffect(() => {
		const timer = setInterval(() => setNow(clock()), intervalMs);
		return () => clearInterval(timer);
	}, [intervalMs, clock]);
	return <ClockContext.Provider value={now}>{children}</ClockContext.Provider>;
}
