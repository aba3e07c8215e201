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

/** What an event does to its task's entry: opens one (newest signal per task, as the queue keeps), closes it, or nothing. */
function effectOf(event: LedgerEvent): {open: Entry} | {closeUpTo: number} | null {
	switch (event.type) {
		case 'need.raised':
			// A session's own notice is answered by its next activity, which this fold does not read (docs/stats.md).
			return AGENT_SOURCES.has(event.source) ? null : {open: {at: event.at, expiresAt: null}};
		case 'review.concluded':
			return event.data.outcome === 'needs-person' ? {open: {at: event.at, expiresAt: null}} : null;
		case 'disagreement.opened':
			return {open: {at: event.at, expiresAt: null}};
		case 'task.failed':
			return {open: {at: event.at, expiresAt: event.at + FAILED_WINDOW_MS}};
		case 'task.exited': {
			const {exitCode, signal} = event.data;
			const failed = typeof exitCode === 'number' && exitCode !== 0 && !signal;
			return failed ? {open: {at: event.at, expiresAt: event.at + FAILED_WINDOW_MS}} : null;
		}
		case 'queue.acknowledged':
			return {closeUpTo: event.data.signalAt ?? event.at};
		case 'work.sent_back':
		case 'work.accepted':
		case 'review.started':
			return {closeUpTo: event.at};
		default:
			return null;
	}
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
