import type {LedgerFileChange} from '../../ledger/open-ledger.ts';
import type {WrapperOptions} from './options.ts';

/** How often a running wrapper checks that its ledger file is still the one it holds open (a stat). */
const LEDGER_CHECK_MS = 2000;

/**
 * Watches the wrapper's ledger file while the child runs. Nothing tells an open SQLite connection
 * that its file was deleted or replaced: without this check the wrapper would keep writing into a
 * file no one can read. When it happens, the ledger is reopened at its path, the wrapper says so
 * on stderr, and `onReopened` records the task again in the new file so its later events land
 * where the board and every other command look.
 */
export function watchLedgerFile(
	options: Pick<WrapperOptions, 'ledger' | 'notice'>,
	onReopened: (change: LedgerFileChange) => void,
): {stop(): void} {
	const check = (): void => {
		let change: LedgerFileChange | null;
		try {
			change = options.ledger.verifyFile();
		} catch (error) {
			options.notice(`cannot reopen the ledger ${options.ledger.path} (${(error as Error).message}); the run goes on`);
			return;
		}
		if (!change) return;
		options.notice(
			`the ledger ${change.path} was ${change.kind} while this task ran: writing to the new file there from now on (earlier events of this task are not in it)`,
		);
		onReopened(change);
	};
	const timer = setInterval(check, LEDGER_CHECK_MS);
	timer.unref();
	return {
		stop() {
			clearInterval(timer);
			// A last look before the end is recorded: the outcome must land in the file others read.
			check();
		},
	};
}
