import type {Door} from '../core/actor.ts';
import type {Ledger} from '../ledger/open-ledger.ts';
import {acknowledgeEntry} from '../ledger/queue.ts';
import {requirePerson} from './person-gate.ts';

// Apart from queue-actions.ts on purpose: the board wires `k` to this at start, and queue-actions
// brings the review gate (the wrapper, contract files), which the first frame must not wait for.

/**
 * The board's `k` (and the same key on a fleet board, carried out by the task's host): a person
 * saw the entry raised at `signalAt`.
 */
export function acknowledgeSignal(
	ledger: Ledger,
	request: {
		readonly taskId: string;
		readonly signalAt: number;
		readonly now: number;
		readonly source: string;
		readonly door?: Door;
	},
): void {
	requirePerson(ledger, {
		verb: 'ack',
		target: request.taskId,
		source: request.source,
		...(request.door ? {door: request.door} : {}),
	});
	acknowledgeEntry(ledger, request.taskId, request.signalAt, request.now, request.source);
}
