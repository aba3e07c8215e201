import {hash} from 'node:crypto';
import type {NewEvent} from '../core/events.ts';
import {costCeiling, isWithinCeiling} from '../core/otel/cost-ceiling.ts';
import type {TelemetryFact} from '../core/otel/telemetry-map.ts';
import type {PriceTable} from '../core/price-table.ts';
import type {Task} from '../core/task.ts';
import type {Ledger} from './open-ledger.ts';
import {AmbiguousTaskError} from './reader.ts';
import {helperTaskId, sessionTaskId} from './payload-mapping.ts';

/**
 * Writes what an agent's telemetry said onto its tasks (docs/otel.md, "Ingest"). The task is the
 * one `run` named (`controlroom.task_id`) where that task's session is the record's (as the hooks
 * told it, or as the task's first telemetry did), else the task that holds the session (a wrapped
 * run its hooks told of the session, or the hook's own session task), else the session task the
 * hooks would make, so a session with no hook at all is recorded too. A sub-agent's request goes
 * on its helper's task where the ledger has one. A reported cost its tokens cannot back is kept as
 * a claim, not summed; a record dated before its task began is dated when it arrived.
 */

export type TelemetryWriteResult = {
	readonly appended: number;
	readonly lastSeq: number;
	/** Records whose named task is another session's: put on their own session's task instead. */
	readonly misnamed: number;
	/** Requests whose cost was kept as a claim (over what their tokens could cost, or not to be bounded). */
	readonly claims: number;
};

export type TelemetryWriteOptions = {
	/** The table a reported cost is bounded by (src/core/otel/cost-ceiling.ts). */
	readonly prices: PriceTable;
	readonly now?: number;
};

type Placed = {readonly taskId: string; readonly isMisnamed: boolean};

function holder(ledger: Ledger, sessionId: string): Task | undefined {
	try {
		return ledger.reader.resolveTask(sessionId);
	} catch (error) {
		if (error instanceof AmbiguousTaskError) return undefined;
		throw error;
	}
}

/**
 * Whether the task `run` named may take a record of `sessionId`: its session, as the hooks told it
 * or as its first telemetry did, is that one; or it has none yet and no other task holds the session.
 */
function takes(ledger: Ledger, task: Task, sessionId: string): boolean {
	const known = task.sessionId ?? task.telemetry?.sessionId ?? null;
	if (known !== null) return known === sessionId;
	const held = holder(ledger, sessionId);
	return held === undefined || held.id === task.id;
}

function placeOf(ledger: Ledger, fact: TelemetryFact, cache: Map<string, Placed>): Placed {
	const cacheKey = `${fact.taskHint ?? ''}\u0000${fact.source}\u0000${fact.sessionId}`;
	const cached = cache.get(cacheKey);
	if (cached !== undefined) return cached;
	let placed: Placed | null = null;
	let isMisnamed = false;
	if (fact.taskHint !== null) {
		const named = ledger.reader.task(fact.taskHint);
		// A task id no task has (a record from elsewhere) names nothing: the session decides.
		if (named && takes(ledger, named, fact.sessionId)) placed = {taskId: named.id, isMisnamed: false};
		else isMisnamed = named !== undefined;
	}
	placed ??= {taskId: holder(ledger, fact.sessionId)?.id ?? sessionTaskId(fact.source, fact.sessionId), isMisnamed};
	cache.set(cacheKey, placed);
	return placed;
}

function helperOf(ledger: Ledger, taskId: string, agentId: unknown): string {
	if (typeof agentId !== 'string' || agentId === '') return taskId;
	const helper = helperTaskId(taskId, agentId);
	return ledger.reader.task(helper) ? helper : taskId;
}

/** A request's cost as the ledger keeps it: summed when its tokens can back it, else a claim beside them. */
function boundedBody(fact: TelemetryFact, prices: PriceTable): {body: TelemetryFact['body']; isClaim: boolean} {
	const data = fact.body.data as Record<string, unknown>;
	const cost = data['costUsd'];
	if (fact.body.type !== 'telemetry.request' || typeof cost !== 'number') return {body: fact.body, isClaim: false};
	const ceiling = costCeiling(prices, data);
	if (isWithinCeiling(cost, ceiling)) return {body: fact.body, isClaim: false};
	return {
		body: {...fact.body, data: {...data, costUsd: null, claimedCostUsd: cost, costCeilingUsd: ceiling}} as TelemetryFact['body'],
		isClaim: true,
	};
}

/** The event a fact becomes: keyed so that the same record sent twice (a retry, a second encoding) adds nothing. */
function eventsOf(ledger: Ledger, facts: readonly TelemetryFact[], options: TelemetryWriteOptions, now: number) {
	const cache = new Map<string, Placed>();
	const seen = new Map<string, number>();
	let misnamed = 0;
	let claims = 0;
	const events = facts.map(fact => {
		const placed = placeOf(ledger, fact, cache);
		if (placed.isMisnamed) misnamed += 1;
		const taskId = helperOf(ledger, placed.taskId, fact.body.data['agentId']);
		const digest = hash('sha1', `${fact.source}\u0000${fact.sessionId}\u0000${fact.identity}`, 'hex').slice(0, 24);
		const occurrence = seen.get(digest) ?? 0;
		seen.set(digest, occurrence + 1);
		// A record dated before its task began, or not dated, is dated when it arrived; one dated far
		// ahead is counted at arrival by the ledger's own guard.
		const task = ledger.reader.task(taskId);
		const at = fact.at > 0 && (task === undefined || fact.at >= task.createdAt) ? fact.at : now;
		const {body, isClaim} = boundedBody(fact, options.prices);
		if (isClaim) claims += 1;
		const event: NewEvent = {...body, taskId, at, source: fact.source, dedupKey: `otel:${digest}#${occurrence}`};
		return event;
	});
	return {events, misnamed, claims};
}

export function writeTelemetry(
	ledger: Ledger,
	facts: readonly TelemetryFact[],
	options: TelemetryWriteOptions,
): TelemetryWriteResult {
	if (facts.length === 0) return {appended: 0, lastSeq: ledger.reader.lastSeq(), misnamed: 0, claims: 0};
	const {events, misnamed, claims} = eventsOf(ledger, facts, options, options.now ?? Date.now());
	return {...ledger.writer.append(events), misnamed, claims};
}
