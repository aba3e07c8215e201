import {useEffect, type Dispatch} from 'react';
import type {BoardAction} from '../src/core/board/state.ts';

/** Started this long after the first frame, so the check's thread does not compete with drawing it. */
const AFTER_FIRST_FRAME_MS = 1000;

/**
 * Once, when the board opens: checks the ledger file's integrity (PRAGMA quick_check, off the
 * board's thread) and puts what it found on the alert lines, where it stays. A check that could
 * not run is said once as a notice.
 */
export function useIntegrityCheck(check: (() => Promise<readonly string[]>) | undefined, dispatch: Dispatch<BoardAction>): void {
	useEffect(() => {
		if (!check) return;
		let isMounted = true;
		const timer = setTimeout(() => {
			check().then(
				problems => {
					if (isMounted && problems.length > 0) dispatch({type: 'integrity-checked', problems});
				},
				(error: unknown) => {
					if (!isMounted) return;
					const why = error instanceof Error ? error.message : String(error);
					dispatch({type: 'notify', notice: {tone: 'warn', text: `the ledger's integrity check could not run: ${why}`}});
				},
			);
		}, AFTER_FIRST_FRAME_MS);
		return () => {
			isMounted = false;
			clearTimeout(timer);
		};
	}, [check, dispatch]);
}

/** How often the board checks what was appended to the chain since its last look. */
const CHAIN_CHECK_MS = 10_000;

/**
 * The board's own check of the ledger's hash chain: the whole chain a second after the first frame
 * (off the board's thread), then every ten seconds what was appended since. A break is put on the
 * alert lines, in red, where it stays; the check then stops. One that could not run is a notice.
 */
export function useChainCheck(check: (() => Promise<string | null>) | undefined, dispatch: Dispatch<BoardAction>): void {
	useEffect(() => {
		if (!check) return;
		let isMounted = true;
		let timer: NodeJS.Timeout | undefined;
		const look = (): void => {
			check().then(
				found => {
					if (!isMounted) return;
					if (found !== null) dispatch({type: 'chain-broken', found});
					else timer = setTimeout(look, CHAIN_CHECK_MS);
				},
				(error: unknown) => {
					if (!isMounted) return;
					const why = error instanceof Error ? error.message : String(error);
					dispatch({type: 'notify', notice: {tone: 'warn', text: `the ledger's chain check could not run: ${why}`}});
					timer = setTimeout(look, CHAIN_CHECK_MS);
				},
			);
		};
		timer = setTimeout(look, AFTER_FIRST_FRAME_MS);
		return () => {
			isMounted = false;
			clearTimeout(timer);
		};
	}, [check, dispatch]);
}
