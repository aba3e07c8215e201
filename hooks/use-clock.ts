import {createContext, useContext} from 'react';

/** The board's one clock: the time now, and a tick everyone listens to. */
export type Clock = {
	now(): number;
	/** Calls `listener` on every tick; returns the unsubscribe. */
	subscribe(listener: (now: number) => void): () => void;
};

/** The shared clock; null outside a ClockProvider. */
export const ClockContext = createContext<Clock | null>(null);

/** The shared clock (docs/board.md, "How it stays live"): one timer for every relative time on screen. */
export function useClock(): Clock {
	const clock = useContext(ClockContext);
	if (clock === null) throw new Error('useClock must be used within a ClockProvider');
	return clock;
}
