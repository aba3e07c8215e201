import {TIME_LIMIT_NEED, timeLimitNeed} from '../core/contract/caps.ts';
import {EventType, type NewEvent} from '../core/events.ts';
import type {Ledger} from '../ledger/open-ledger.ts';

/** The role claim tasks carry (src/handoff/claims.ts, CLAIM_ROLE; the handoff floor is not imported from here). */
const CLAIM_ROLE = 'claim';

/**
 * The needs of claims held past their time limit (docs/contracts.md, "Caps"), each raised once
 * by a reconciler pass: the limit runs on whether or not anyone is watching the board, and the
 * need is on the ledger, not derived by one view.
 */
export function overTimeClaimNeeds(ledger: Ledger, now: number): NewEvent[] {
	const needs: NewEvent[] = [];
	for (const task of ledger.reader.tasksWithStatus(['running'])) {
		if (task.role !== CLAIM_ROLE) continue;
		const [taken] = ledger.reader.latestEventsOf(task.id, [EventType.claimTaken], 1);
		if (!taken) continue;
		const raised = ledger.reader
			.latestEventsOf(task.id, [EventType.needRaised], 50)
			.some(event => event.data.kind === TIME_LIMIT_NEED);
		const message = timeLimitNeed(
			{
				taskId: task.id,
				holder: taken.data.holder ?? 'unknown',
				takenAt: taken.at,
				timeLimitSeconds: taken.data.timeLimitSeconds ?? null,
				isRaised: raised,
			},
			now,
		);
		if (message === null) continue;
		needs.push({
			taskId: task.id,
			type: EventType.needRaised,
			at: now,
			source: 'reconciler',
			data: {lane: 'needs', kind: TIME_LIMIT_NEED, message, actor: null},
		});
	}
	return needs;
}

/** Writes the needs of claims past their time limit; the ids of the claims raised. */
export function raiseOverTimeClaims(ledger: Ledger, now: number): string[] {
	return ledger.writer.transaction(() => {
		const needs = overTimeClaimNeeds(ledger, now);
		if (needs.length > 0) ledger.writer.append(needs);
		return needs.map(need => need.taskId);
	});
}
