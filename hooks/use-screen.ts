import {useEffect, useMemo, useRef, useState} from 'react';
import type {BoardOpening} from '../src/core/board/opening.ts';
import {selectScreen, type ScreenView} from '../src/core/board/screen.ts';
import type {BoardOptions} from '../src/core/board/selectors.ts';
import type {BoardState} from '../src/core/board/state.ts';
import {useClock} from './use-clock.ts';

type Size = {readonly width: number; readonly height: number};
type Basis = {readonly state: BoardState; readonly size: Size; readonly options: BoardOptions};

/**
 * The screen view, memoized over the state and the size; on a clock tick it is recomputed once and
 * re-rendered only when something on screen changed (a label moved on), so an idle board stays idle.
 * The board opens on its first screen (`opening`), the one its first frame was drawn from.
 */
export function useScreen(state: BoardState, size: Size, options: BoardOptions, opening?: BoardOpening): ScreenView {
	const clock = useClock();
	// The screen a tick computed, kept with what it was computed from so the render reuses it.
	const [ticked, setTicked] = useState<{readonly screen: ScreenView; readonly basis: Basis} | null>(() =>
		opening && opening.state === state && opening.size.width === size.width && opening.size.height === size.height
			? {screen: opening.screen, basis: {state, size, options}}
			: null,
	);
	const isTickCurrent =
		ticked !== null && ticked.basis.state === state && ticked.basis.size === size && ticked.basis.options === options;
	// Not made again while the tick's (or the opening's) screen is the current one.
	const fresh = useMemo(
		() => (isTickCurrent ? null : selectScreen(state, clock.now(), size, options)),
		[isTickCurrent, state, size, options, clock],
	);
	const screen = isTickCurrent ? ticked.screen : (fresh as ScreenView);
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
