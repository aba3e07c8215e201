import {assertNever} from '../assert-never.ts';
import {formatDuration} from '../format.ts';
import type {HumanQueue} from '../human-queue.ts';
import type {VerdictRecord} from '../review/reviews.ts';
import type {VerdictKind} from '../review/verdict.ts';
import type {Task} from '../task.ts';
import type {Tone} from './tone.ts';

/** One line of the Reviews panel: task, verdict, round, reviewer, age; a disagreement labelled. */
export type ReviewRowView = {
	readonly key: string;
	readonly text: string;
	readonly tone: Tone;
	readonly isDisagreement: boolean;
};

/** The Reviews panel: its rows (newest first) and how many verdicts there are. */
export type ReviewsView = {readonly rows: readonly ReviewRowView[]; readonly total: number};

/** The tone of a verdict: approved is fine, fixes want attention, no usable verdict is an error. */
export function verdictTone(verdict: VerdictKind): Tone {
	switch (verdict) {
		case 'APPROVE':
			return 'ok';
		case 'FIX':
			return 'warn';
		case 'INVALID':
		case 'STOPPED':
			return 'error';
		default:
			return assertNever(verdict);
	}
}

const REVIEWER_CHARS = 24;

function shortCommand(command: string | null): string {
	const flat = (command ?? '?').replace(/\s+/g, ' ').trim();
	return flat.length > REVIEWER_CHARS ? `${flat.slice(0, REVIEWER_CHARS - 1)}…` : flat;
}

function verdictText(entry: VerdictRecord): string {
	switch (entry.verdict) {
		case 'FIX':
			return `FIX ${entry.fixes.length}`;
		case 'STOPPED':
			return `STOPPED ${entry.signal ?? ''}`.trim();
		case 'APPROVE':
		case 'INVALID':
			return entry.verdict;
		default:
			return assertNever(entry.verdict);
	}
}

/** The Reviews panel's rows from the latest verdicts (already newest first). */
export function selectReviews(verdicts: readonly VerdictRecord[], now: number): ReviewsView {
	const rows = verdicts.map(entry => ({
		key: `${entry.reviewId}-${entry.round}-${entry.reviewer}`,
		text:
			`${entry.taskId}  ${verdictText(entry)}  round ${entry.round}  #${entry.reviewer} ${shortCommand(entry.command)}  ` +
			`${formatDuration(now - entry.at)} ago${entry.isDisagreement ? '  ≠ disagree' : ''}`,
		tone: verdictTone(entry.verdict),
		isDisagreement: entry.isDisagreement,
	}));
	return {rows, total: verdicts.length};
}

/** The queue lanes whose entries `x` sends back. */
const SEND_BACK_LANES: ReadonlySet<string> = new Set(['reviews', 'failed', 'waiting']);

/**
 * Why `x` cannot send this task back, or null when it can: it must wait for a person in the
 * reviews or waiting lane, or have failed (docs/review.md).
 */
export function sendBackBlockedReason(
	task: Pick<Task, 'id' | 'status'> & Partial<Pick<Task, 'source' | 'role'>>,
	queue: HumanQueue,
): string | null {
	const waiting = queue.lanes.some(lane => SEND_BACK_LANES.has(lane.name) && lane.items.some(item => item.taskId === task.id));
	if (!waiting && task.status !== 'failed')
		return `${task.id} is not waiting for a person (${task.status}); x sends back a review, a failure or a hand-in`;
	// What send-back would refuse after the reason is typed, said before it is asked for: only a run
	// the wrapper started has a command to run again, and only a claim can be returned to the pool.
	if (task.role !== 'claim' && task.source !== undefined && task.source !== 'wrapper')
		return `cannot send ${task.id} back: it was not started by controlroom run, so there is no command to run again`;
	return null;
}
