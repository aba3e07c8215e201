import type {Deliver} from '../producers/reactions.ts';
import {MessageError, queueMessage} from './messages.ts';

/**
 * A reaction's send (docs/reactions.md, "Delivery"): the message is queued for the task as a
 * person's `controlroom send` is (docs/messages.md), from the rule, under one key per firing, so a
 * retried attempt never queues it twice; the task's next turn boundary delivers it
 * (`message.delivered`). A task that cannot take it (ended, unknown) is a failed attempt.
 */
export function sendReaction(ledger: Parameters<typeof queueMessage>[0]): Deliver {
	return async (task, message, from) => {
		try {
			const queued = queueMessage(ledger, {
				taskRef: task.id,
				text: message,
				from: {kind: 'reaction', rule: from.rule},
				source: 'reactions',
				dedupKey: `reaction-message:${from.firedSeq}`,
			});
			return {
				outcome: 'queued',
				detail: `message ${queued.messageId}${queued.isNew ? '' : ', queued before'}; delivered at the task's next turn boundary`,
			};
		} catch (error) {
			if (error instanceof MessageError) return {outcome: 'failed', detail: error.message};
			throw error;
		}
	};
}
