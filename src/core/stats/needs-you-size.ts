import {FAILED_WINDOW_MS, SESSION_ANSWERED_SOURCES} from '../human-queue.ts';
import type {LedgerEvent} from '../events.ts';

/** Above this many entries the queue is over its cap (the rollout's "the queue stays under five"). */
export const NEEDS_YOU_CAP = 5;

/** An event with the host it came from: task ids are a host's own, so entries are keyed by both. */
export type HostedEvent = {readonly hostId: string; readonly event: LedgerEvent};

/** From `at` on, until the next step, Needs you held `size` entries. */
export type SizeStep = {readonly at: number; readonly size: number};

type Entry = {readonly at: number; readonly expiresAt: number | null};

const AGENT_SOURCES: ReadonlySet<string> = new Set(SESSION_ANSWERED_SOURCES);

type Effect = {open: Entry} | {closeUpTo: number} | null;

const opens = (at: number, expiresAt: number | null = null): Effect => ({open: {at, expiresAt}});

/** A failure stays for the failed window, as on the board. */
const failure = (at: number): Effect => opens(at, at + FAILED_WINDOW_MS);

/** What each event type the fold reads does to its task's entry: opens one (newest signal per task, as the queue keeps), or closes it. */
const EFFECTS: Partial<Record<string, (event: LedgerEvent & {type: string}) => Effect>> = {
	// A session's own notice is answered by its next activity, which this fold does not read (docs/stats.md).
	'need.raised': event => (AGENT_SOURCES.has(event.source) ? null : opens(event.at)),
	'review.concluded': event =>
		event.type === 'review.concluded' && event.data.outcome === 'needs-person' ? opens(event.at) : null,
	'disagreement.opened': event => opens(event.at),
	'task.failed': event => failure(event.at),
	'task.exited': event => {
		if (event.type !== 'task.exited') return null;
		const {exitCode, signal} = event.data;
		return typeof exitCode === 'number' && exitCode !== 0 && !signal ? failure(event.at) : null;
	},
	'queue.acknowledged': event => ({
		closeUpTo: event.type === 'queue.acknowledged' ? (event.data.signalAt ?? event.at) : event.at,
	}),
	'work.sent_back': event => ({closeUpTo: event.at}),
	'work.accepted': event => ({closeUpTo: event.at}),
	'review.started': event => ({closeUpTo: event.at}),
};

function effectOf(event: LedgerEvent): Effect {
	return EFFECTS[event.type]?.(event) ?? null;
}

/**
 * The size of Needs you over time, as steps (docs/stats.md, "Needs you over time"): one entry a
 * task (its newest signal), opened by a need raised by a person or a worker, a review that needs a
 * person, a disagreement, a failure (for the failed window); closed by an acknowledgement, a
 * send-back, an acceptance or a new review of the task. `events` oldest first.
 */
export function needsYouSteps(events: readonly HostedEvent[]): SizeStep[] {
	const open = new Map<string, Entry>();
	const steps: SizeStep[] = [];
	const record = (at: number) => {
		const last = steps.at(-1);
		if (last && last.size === open.size) return;
		if (last && last.at === at) steps[steps.length - 1] = {at, size: open.size};
		else steps.push({at, size: open.size});
	};
	const expireUpTo = (at: number) => {
		const due = [...open].filter(([, entry]) => entry.expiresAt !== null && entry.expiresAt <= at);
		due.sort((a, b) => (a[1].expiresAt ?? 0) - (b[1].expiresAt ?? 0));
		for (const [key, entry] of due) {
			open.delete(key);
			record(entry.expiresAt ?? at);
		}
	};
	for (const {hostId, event} of events) {
		if (event.type === 'foreign') continue;
		expireUpTo(event.at);
		const effect = effectOf(event);
		if (effect === null) continue;
		const key = `${hostId}\u0000${event.taskId}`;
		if ('open' in effect) {
			const previous = open.get(key);
			if (previous === undefined || previous.at <= effect.open.at) open.set(key, effect.open);
		} else {
			const entry = open.get(key);
			if (entry !== undefined && entry.at <= effect.closeUpTo) open.delete(key);
		}
		record(event.at);
	}
	expireUpTo(Number.POSITIVE_INFINITY);
	return steps;
}

/** The largest size and the time spent over the cap between `from` and `to`, from the steps. */
export function sizeBetween(steps: readonly SizeStep[], from: number, to: number): {max: number; overCapMs: number} {
	let max = 0;
	let overCapMs = 0;
	for (let index = 0; index < steps.length; index += 1) {
		const step = steps[index];
		if (step === undefined) continue;
		const start = Math.max(step.at, from);
		const end = Math.min(steps[index + 1]?.at ?? Number.POSITIVE_INFINITY, to);
		if (end <= start) continue;
		max = Math.max(max, step.size);
		if (step.size > NEEDS_YOU_CAP) overCapMs += end - start;
	}
	return {max, overCapMs};
}
