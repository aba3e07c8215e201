import {NotAPersonError} from '../core/actor.ts';
import {terminalSafe} from '../core/terminal-text.ts';
import {MessageError, sendAsPerson} from '../gates/messages.ts';
import type {Ledger} from '../ledger/open-ledger.ts';
import {AmbiguousTaskError} from '../ledger/reader.ts';

/**
 * The board's m: a word to the running agent under the cursor, through the function behind
 * `controlroom send` (the actor rule first). Loaded at the first m, as the send-back is at the first x.
 */
export function messageFromBoard(
	ledger: Ledger,
	taskId: string,
	text: string,
): Promise<{readonly isSent: boolean; readonly message: string}> {
	try {
		const queued = sendAsPerson(ledger, {taskRef: taskId, text, source: 'board'});
		return Promise.resolve({
			isSent: true,
			message: `sent ${queued.messageId} to ${terminalSafe(queued.taskId)}: it gets it at its next turn boundary`,
		});
	} catch (error) {
		if (error instanceof MessageError || error instanceof NotAPersonError || error instanceof AmbiguousTaskError)
			return Promise.resolve({isSent: false, message: terminalSafe(error.message)});
		throw error;
	}
}
