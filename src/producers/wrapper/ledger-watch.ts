import {isStillInItsFile, watchLedgerFile as watchFile} from '../../ledger/file-watch.ts';
import type {LedgerFileChange} from '../../ledger/open-ledger.ts';
import type {WrapperOptions} from './options.ts';

/**
 * Watches the wrapper's ledger file while the child runs. Nothing tells an open SQLite connection
 * that its file was moved, deleted or replaced: without this check the wrapper would keep writing
 * into a file no one can read. A moved ledger keeps the task: the wrapper finishes in the file it
 * opened (its WAL goes with it, open-ledger.ts) and says where its events go. A deleted or replaced
 * one is reopened at its path, the wrapper says so on stderr, and `onReopened` records the task
 * again in the new file so its later events land where the board and every other command look.
 */
export function watchLedgerFile(
	options: Pick<WrapperOptions, 'ledger' | 'notice'>,
	onReopened: (change: LedgerFileChange) => void,
): {stop(): void} {
	const watch = watchFile(
		options.ledger,
		change => {
			if (isStillInItsFile(change)) {
				options.notice(
					`the ledger ${change.path} was moved to ${change.nowIn} while this task ran: this task's events, earlier and later, are in ${change.nowIn}`,
				);
				return;
			}
			options.notice(
				`the ledger ${change.path} was ${change.kind} while this task ran: writing to the new file there from now on (earlier events of this task are not in it)`,
			);
			onReopened(change);
		},
		error => options.notice(`cannot reopen the ledger ${options.ledger.path} (${error.message}); the run goes on`),
	);
	return {
		stop() {
			watch.stop();
			// A last look before the end is recorded: the outcome must land in the file others read.
			watch.check();
		},
	};
}
