import type {Statement} from 'better-sqlite3';
import type {CodexUsage} from '../core/codex-usage.ts';
import {EventType} from '../core/events.ts';
import type {Ledger} from '../ledger/open-ledger.ts';

type Statements = {readonly threadUsage: Statement; readonly stopRequest: Statement};
const prepared = new WeakMap<Ledger, Statements>();

function statementsOf(ledger: Ledger): Statements {
	let statements = prepared.get(ledger);
	if (!statements) {
		statements = {
			threadUsage: ledger.db
				.prepare(`SELECT data FROM events WHERE type = ? AND json_extract(data, '$.threadId') = ? ORDER BY seq DESC LIMIT 1`)
				.pluck(),
			stopRequest: ledger.db.prepare('SELECT data FROM events WHERE task_id = ? AND type = ? ORDER BY seq DESC LIMIT 1').pluck(),
		};
		prepared.set(ledger, statements);
	}
	return statements;
}

/**
 * The last cumulative usage recorded for a Codex thread, by any run: `codex exec resume` reports
 * the thread's total so far, and only the new turns belong to the new run.
 */
export function previousThreadUsage(ledger: Ledger, threadId: string): CodexUsage | undefined {
	const data = statementsOf(ledger).threadUsage.get(EventType.tokensReported, threadId) as string | undefined;
	if (!data) return undefined;
	const cumulative = (JSON.parse(data) as {cumulative?: {input?: unknown; output?: unknown}}).cumulative;
	const input = cumulative?.input;
	const output = cumulative?.output;
	return typeof input === 'number' && typeof output === 'number' ? {input, output} : undefined;
}

/** The signal `controlroom stop` asked for this task, if it asked. */
export function latestStopRequest(ledger: Ledger, taskId: string): string | null {
	const data = statementsOf(ledger).stopRequest.get(taskId, EventType.stopRequested) as string | undefined;
	if (!data) return null;
	const signal = (JSON.parse(data) as {signal?: unknown}).signal;
	return typeof signal === 'string' ? signal : 'SIGTERM';
}
