import {createContext, useContext} from 'react';

/** The shared clock's current time, in ms; null outside a ClockProvider. */
export const ClockContext = createContext<number | null>(null);

/** The board's shared `now`: one timer for the whole app (STYLE.md R19). */
export function useNow(): number {
	const now = useContext(ClockContext);
	if (now === null) throw new Error('useNow must be used within a ClockProvider');
	return now;
}
