import {useEffect, useRef} from 'react';

/** Rings `ring` once each time `bells` goes up (a new entry in Needs you); never for the count it starts with. */
export function useBell(bells: number, ring: (() => void) | undefined): void {
	const rung = useRef(bells);
	useEffect(() => {
		if (bells <= rung.current) return;
		rung.current = bells;
		ring?.();
	}, [bells, ring]);
}
