import {useEffect, useMemo, useRef, useState} from 'react';
import {selectScreen, type ScreenView} from '../src/core/board/screen.ts';
import type {BoardOptions} from '../src/core/board/selectors.ts';
import type {BoardState} from '../src/core/board/state.ts';
import {useClock} from './use-clock.ts';

type Size = {readonly width: number; readonly height: number};
type Basis = {readonly state: BoardState; readonly size: Size; readonly options: BoardOptions};

/**
 * The screen view, memoized over the state and the size; on a clock tick it is recomputed once and
 * re-rendered only when something on screen changed (a label moved on), so an idle board stays idle.
 */
export function useScreen(state: BoardState, size: Size, options: BoardOptions): ScreenView {
	const clock = useClock();
	// The screen a tick computed, kept with what it was computed from so the render reuses it.
	const [ticked, setTicked] = useState<{readonly screen: ScreenView; readonly basis: Basis} | null>(null);
	const fresh = useMemo(() => selectScreen(state, clock.now(), size, options), [state, size, options, clock]);
	const isTickCurrent =
		ticked !== null && ticked.basis.state === state && ticked.basis.size === size && ticked.basis.options === options;
	const screen = isTickCurrent ? ticked.screen : fresh;
	const key = useMemo(() => JSON.stringify(screen), [screen]);
	const latest = useRef({basis: {state, size, options} as Basis, key});
	latest.current = {basis: {state, size, options}, key};
	useEffect(
		() =>
			clock.subscribe(now => {
				const {basis, key: shownKey} = latest.current;
				const next = selectScreen(basis.state, now, basis.size, basis.options);
				if (JSON.stringify(next) !== shownKey) setTicked({screen: next, basis});
			}),
		[clock],
	);
	return screen;
}
