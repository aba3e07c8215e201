import {useEffect, useMemo, useRef, useState} from 'react';
import {selectScreen, type ScreenView} from '../src/core/board/screen.ts';
import type {BoardOptions} from '../src/core/board/selectors.ts';
import type {BoardState} from '../src/core/board/state.ts';
import {useClock} from './use-clock.ts';

type Size = {readonly width: number; readonly height: number};

/**
 * The screen view, memoized over the state and the size; on a clock tick it is recomputed and
 * re-rendered only when something on screen changed (a label moved on), so an idle board stays idle.
 */
export function useScreen(state: BoardState, size: Size, options: BoardOptions): ScreenView {
	const clock = useClock();
	const [tick, setTick] = useState(0);
	const screen = useMemo(() => selectScreen(state, clock.now(), size, options), [state, size, options, clock, tick]);
	const latest = useRef({state, size, options, key: JSON.stringify(screen)});
	latest.current = {state, size, options, key: JSON.stringify(screen)};
	useEffect(
		() =>
			clock.subscribe(now => {
				const current = latest.current;
				const next = selectScreen(current.state, now, current.size, current.options);
				if (JSON.stringify(next) !== current.key) setTick(value => value + 1);
			}),
		[clock],
	);
	return screen;
}
