import {parseStoredEvent, type LedgerEvent} from '../core/events.ts';
import type {Task} from '../core/task.ts';

/** An events row as SQLite returns it. */
export type EventRow = {
	seq: number;
	task_id: string;
	type: string;
	at: number;
	source: string;
	data: string;
	dedup_key: string | null;
};

/** Turns a stored row back into an event, through the event schema (an edge: docs/architecture.md, "Parse at the edges"). */
export function eventFromRow(row: EventRow): LedgerEvent {
	return parseStoredEvent({
		seq: row.seq,
		taskId: row.task_id,
		type: row.type,
		at: row.at,
		source: row.source,
		data: row.data,
		dedupKey: row.dedup_key,
	});
}

/**
 * The projection keeps the whole task as JSON beside the indexed columns. Only the projection
 * (applyEvent, inside the writer's transaction) writes it, so it is read back without a re-parse.
 */
export function taskFromDoc(doc: string): Task {
	return taskFromValue(JSON.parse(doc) as Task);
}

/** A task document already parsed (and, from another host, checked: src/ledger/fleet/task-doc.ts), with the fields older builds lack. */
export function taskFromValue(task: Task): Task {
	// Rows projected before `lastSeenAt` existed: their last event is the best sign of life they have.
	const seen =
		task.lastSeenAt === undefined
			? {
					...task,
					lastSeenAt: task.lastEventAt,
					lastSeenSeq: null,
					futureEvent: null,
					isTokensPartial: false,
					sessionEndedAt: null,
				}
			: task;
	// Rows projected before `hasCompletedTurn` existed keep the rule they were written under:
	// a session not mid-turn counted as at rest.
	return seen.hasCompletedTurn === undefined ? {...seen, hasCompletedTurn: true} : seen;
}
