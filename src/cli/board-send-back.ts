import {sendBack} from '../gates/review/send-back.ts';
import {ReviewGateError} from '../gates/review/subject.ts';
import {AmbiguousTaskError} from '../ledger/reader.ts';
import type {Ledger} from '../ledger/open-ledger.ts';
import {commandSettings} from './config-file.ts';
import {CliError} from './errors.ts';
import {selfLauncher} from './gate-call.ts';

/**
 * The board's `x` on a task, hand-in or review: sends the work back with the reason through the
 * review gate. A module of its own because the board loads it at the first `x`: the gate brings
 * the wrapper, execa and the contract files' YAML, which the first frame must not wait for.
 */
export function sendBackFromBoard(
	ledger: Ledger,
	taskId: string,
	reason: string,
): {readonly isSentBack: boolean; readonly message: string} {
	try {
		const result = sendBack({
			ledger,
			ref: taskId,
			reason,
			by: null,
			source: 'board',
			launcher: selfLauncher(),
			// The file as it is now: a limit changed since the board started counts from the next x.
			...commandSettings({passBackLimit: undefined, failedRunLimit: undefined}),
		});
		return {isSentBack: true, message: result.message};
	} catch (error) {
		if (error instanceof ReviewGateError || error instanceof AmbiguousTaskError || error instanceof CliError)
			return {isSentBack: false, message: `x: ${error.message}`};
		throw error;
	}
}
