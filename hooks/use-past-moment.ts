import {useCallback, useMemo, useState, type Dispatch} from 'react';
import {keyWordOf, type KeyBinding} from '../src/core/board/keymap.ts';
import {pastRefusal, STEP_OF, stepMoment, type PastMoment} from '../src/core/board/past-moment.ts';
import type {BoardOptions} from '../src/core/board/selectors.ts';
import type {BoardAction} from '../src/core/board/state.ts';
import type {PastBoardFeed} from '../src/ledger/board-feed.ts';

/** A board at a past moment's part of the board: the options its screen is drawn with, and its keys. */
export type PastMomentControls = {
	/** The board's options with the moment shown (the header's line, the key table in force). */
	readonly options: BoardOptions;
	/** Takes a key that steps through time, or that would act (it says why it does not): true when taken. */
	readonly take: (binding: KeyBinding) => boolean;
};

/**
 * The moment a past board (`board --at`) shows, and its keys: a step is the rules' (stepMoment), read
 * by the feed as one full read of the board then; a key that would act is answered with why it does
 * not. On the live board (no `past`) it takes no key and leaves the options as they are.
 */
export function usePastMoment(
	past: PastBoardFeed | undefined,
	options: BoardOptions,
	openTaskId: string | null,
	dispatch: Dispatch<BoardAction>,
): PastMomentControls {
	const [moment, setMoment] = useState<PastMoment | null>(() => past?.moment() ?? null);
	const shown = useMemo(
		(): BoardOptions =>
			past === undefined || moment === null ? options : {...options, past: {...moment, latestSeq: past.index.lastSeq()}},
		[past, moment, options],
	);
	const take = useCallback(
		(binding: KeyBinding): boolean => {
			if (past === undefined) return false;
			const step = STEP_OF[binding.command];
			if (step !== undefined) {
				const result = stepMoment(past.moment(), step, past.index, Date.now());
				if ('stays' in result) {
					dispatch({type: 'notify', notice: {tone: 'info', text: `${keyWordOf(binding)}: ${result.stays}`}});
					return true;
				}
				dispatch({type: 'ledger-read', ...past.moveTo(result.moment, openTaskId)});
				dispatch({type: 'notify', notice: null});
				setMoment(result.moment);
				return true;
			}
			const refusal = pastRefusal(binding);
			if (refusal === null) return false;
			dispatch({type: 'notify', notice: {tone: 'warn', text: refusal}});
			return true;
		},
		[past, openTaskId, dispatch],
	);
	return {options: shown, take};
}
