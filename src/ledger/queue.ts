import {EventType} from '../core/events.ts';
import {SESSION_ANSWERED_SOURCES, type HumanQueue} from '../core/human-queue.ts';
import {hostGatesOf} from '../core/read-port/host-gates.ts';
import {hostQueue, type HostQueueOptions} from '../core/read-port/host-queue.ts';
import {localReadPort} from './local-read-port.ts';
import type {Ledger} from './open-ledger.ts';
import type {LedgerReader} from './reader.ts';

/**
 * Records that a person saw the queue entry raised at `signalAt` (the board's `k`, and the same
 * key pressed on a fleet board, carried out by the task's host).
 */
export function acknowledgeEntry(ledger: Ledger, taskId: string, signalAt: number, now: number, source: string): void {
	ledger.writer.append([{taskId, type: EventType.acknowledged, at: now, source, data: {signalAt}}]);
}

/** The local ledger's human queue: its rows (failures, needs, gates) through the read port, its rules in src/core. */
export function loadHumanQueue(reader: LedgerReader, now: number, options: HostQueueOptions = {}): HumanQueue {
	const [rows] = localReadPort(reader).queueRows({now, answeredBySession: SESSION_ANSWERED_SOURCES});
	return rows ? hostQueue(rows, hostGatesOf(rows.gateEvents), now, options) : {lanes: [], total: 0};
}

/** One task's queue entry, if it has one (found past a lane's first five too), with its lane, as `explain` names it. */
export function loadQueueEntry(reader: LedgerReader, now: number, taskId: string) {
	const queue = loadHumanQueue(reader, now, {limit: Number.MAX_SAFE_INTEGER});
	for (const lane of queue.lanes) {
		const item = lane.items.find(entry => entry.taskId === taskId);
		if (item) return {lane: lane.name, reason: item.reason, at: item.at, seq: item.seq};
	}
	return null;
}
