import type {Ledger, LedgerFileChange} from './open-ledger.ts';

/** How often a long-lived process looks at its ledger file (a stat; docs/ledger.md). */
export const LEDGER_CHECK_MS = 2000;

/** A long-lived process's watch over its ledger file. */
export type LedgerFileWatch = {
	/** Looks now (before a write that must land where others read). */
	check(): void;
	stop(): void;
};

/**
 * Looks at the ledger's file every LEDGER_CHECK_MS and whenever asked (`Ledger.verifyFile`): a
 * moved ledger is handed over to its new name, a deleted or replaced one reopened, and
 * `onChange` says what happened. A look that fails (the path cannot be reopened) goes to `onError`
 * and the process goes on. The timer never keeps the process alive.
 */
export function watchLedgerFile(
	ledger: Ledger,
	onChange: (change: LedgerFileChange) => void,
	onError: (error: Error) => void,
): LedgerFileWatch {
	const check = (): void => {
		let change: LedgerFileChange | null;
		try {
			change = ledger.verifyFile();
		} catch (error) {
			onError(error as Error);
			return;
		}
		if (change) onChange(change);
	};
	const timer = setInterval(check, LEDGER_CHECK_MS);
	timer.unref();
	return {check, stop: () => clearInterval(timer)};
}

/** Whether a change left a writer in the very file it opened (moved, and it stayed with it). */
export const isStillInItsFile = (change: LedgerFileChange): boolean => change.kind === 'moved' && change.nowIn === change.movedTo;
