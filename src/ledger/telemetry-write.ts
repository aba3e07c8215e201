import {hash} from 'node:crypto';
import type {NewEvent} from '../core/events.ts';
import type {TelemetryFact} from '../core/otel/telemetry-map.ts';
import type {Ledger} from './open-ledger.ts';
import {AmbiguousTaskError} from './reader.ts';
import {helperTaskId, sessionTaskId} from './payload-mapping.ts';

/**
 * Writes what an agent's telemetry said onto its tasks (docs/otel.md, "Ingest"). The task is the
 * one `run --otel` named (`controlroom.task_id`), else the task that holds the session (a wrapped
 * run its hooks told of the session, or the hook's own session task), else the session task the
 * hooks would make, so a session with no hook at all is recorded too. A sub-agent's request goes
 * on its helper's task where the ledger has one.
 */

export type TelemetryWriteResult = {readonly appended: number; readonly lastSeq: number};

function taskOf(ledger: Ledger, fact: TelemetryFact, cache: Map<string, string>): string {
	const cacheKey = `${fact.taskHint ?? ''}\u0000${fact.source}\u0000${fact.sessionId}`;
	const cached = cache.get(cacheKey);
	if (cached !== undefined) return cached;
	let taskId: string | null = null;
	if (fact.taskHint !== null && ledger.reader.task(fact.taskHint)) taskId = fact.taskHint;
	if (taskId === null) {
		try {
			taskId = ledger.reader.resolveTask(fact.sessionId)?.id ?? null;
		} catch (error) {
			if (!(error instanceof AmbiguousTaskError)) throw error;
		}
	}
	// A task id no task has (a record from elsewhere) names nothing: the session decides.
	taskId ??= sessionTaskId(fact.source, fact.sessionId);
	cache.set(cacheKey, taskId);
	return taskId;
}

function helperOf(ledger: Ledger, taskId: string, agentId: unknown): string {
	if (typeof agentId !== 'string' || agentId === '') return taskId;
	const helper = helperTaskId(taskId, agentId);
	return ledger.reader.task(helper) ? helper : taskId;
}

/** The event a fact becomes: keyed so that the same record sent twice (a retry, a second encoding) adds nothing. */
function eventsOf(ledger: Ledger, facts: readonly TelemetryFact[], now: number): NewEvent[] {
	const cache = new Map<string, string>();
	const seen = new Map<string, number>();
	return facts.map(fact => {
		const parent = taskOf(ledger, fact, cache);
		const taskId = helperOf(ledger, parent, fact.body.data['agentId']);
		const digest = hash('sha1', `${fact.source}\u0000${fact.sessionId}\u0000${fact.identity}`, 'hex').slice(0, 24);
		const occurrence = seen.get(digest) ?? 0;
		seen.set(digest, occurrence + 1);
		// A record dated far ahead is counted at arrival (the ledger's own guard does the rest).
		const at = fact.at > 0 ? fact.at : now;
		const event: NewEvent = {...fact.body, taskId, at, source: fact.source, dedupKey: `otel:${digest}#${occurrence}`};
		return event;
	});
}

export function writeTelemetry(ledger: Ledger, facts: readonly TelemetryFact[], now = Date.now()): TelemetryWriteResult {
	if (facts.length === 0) return {appended: 0, lastSeq: ledger.reader.lastSeq()};
	return ledger.writer.append(eventsOf(ledger, facts, now));
}
