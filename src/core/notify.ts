import type {HumanQueue, QueueLane} from './human-queue.ts';
import {terminalSafe} from './terminal-text.ts';

/**
 * Notifications for what comes into Needs you while the board is open (docs/tmux.md,
 * "Notifications"): one per entry, never again for the same entry, rate-limited. Pure: the board's
 * adapter (src/cli/board-notify.ts) sends them.
 */

/** What `--notify-command` gets on stdin: one JSON line per entry. */
export type NeedsYouNotification = {
	readonly v: 1;
	readonly kind: 'needs-you';
	readonly lane: QueueLane;
	readonly taskId: string;
	/** The task a question is about (a Decisions entry's taskId is the question's `d-…` id). */
	readonly about: string | null;
	readonly host: string | null;
	readonly reason: string;
	/** When the entry began to wait (ISO 8601). */
	readonly at: string;
	/** Same entry, same key: what the board deduplicates by. */
	readonly key: string;
	/** Entries left out by the rate limit since the last one sent. */
	readonly suppressed: number;
};

/** The entries of a queue, each with its key (lane, host, task and when it began to wait). */
function entriesOf(queue: HumanQueue): {key: string; notification: Omit<NeedsYouNotification, 'suppressed'>}[] {
	return queue.lanes.flatMap(lane =>
		lane.items.map(item => {
			const key = `${lane.name}:${item.host ?? ''}:${item.taskId}@${item.at}`;
			return {
				key,
				notification: {
					v: 1 as const,
					kind: 'needs-you' as const,
					lane: lane.name,
					taskId: item.taskId,
					about: item.about ?? null,
					host: item.host ?? null,
					reason: item.reason,
					at: new Date(item.at).toISOString(),
					key,
				},
			};
		}),
	);
}

/** Every entry's key: what was there already is never announced. */
export function queueKeys(queue: HumanQueue): string[] {
	return entriesOf(queue).map(entry => entry.key);
}

/** The entries of `queue` whose keys are not in `notified`, in the queue's order. */
export function freshEntries(queue: HumanQueue, notified: ReadonlySet<string>): Omit<NeedsYouNotification, 'suppressed'>[] {
	return entriesOf(queue)
		.filter(entry => !notified.has(entry.key))
		.map(entry => entry.notification);
}

/** At most this many notifications in `NOTIFY_WINDOW_MS`; the rest are counted into the next one. */
export const NOTIFY_BURST = 5;
export const NOTIFY_WINDOW_MS = 60_000;

/** The times the last notifications went out, and how many were held back since. */
export type RateState = {readonly sentAt: readonly number[]; readonly suppressed: number};
export const NO_NOTIFICATIONS: RateState = {sentAt: [], suppressed: 0};

/** Whether one more may go out at `now`; the state after it (sent, or counted as suppressed). */
export function admitNotification(state: RateState, now: number): {isAllowed: boolean; state: RateState} {
	const recent = state.sentAt.filter(at => now - at < NOTIFY_WINDOW_MS);
	if (recent.length >= NOTIFY_BURST) return {isAllowed: false, state: {sentAt: recent, suppressed: state.suppressed + 1}};
	return {isAllowed: true, state: {sentAt: [...recent, now], suppressed: 0}};
}

const DESKTOP_CHARS = 200;

/** One line a person reads on the desktop: the lane, the task, why; agent text made safe, no `;` (OSC's separator). */
export function desktopText(notification: NeedsYouNotification): string {
	const more = notification.suppressed > 0 ? ` (+${notification.suppressed} more)` : '';
	const text = `${notification.lane}: ${notification.taskId}: ${notification.reason}`.replace(/\s+/g, ' ');
	// terminalSafe leaves no control character (so no BEL or ESC to end the sequence early); `;` goes too.
	const safe = terminalSafe(text).replaceAll(';', ',');
	return `${safe.length > DESKTOP_CHARS ? `${safe.slice(0, DESKTOP_CHARS - 1)}…` : safe}${more}`;
}

/** tmux passes an escape sequence to the outer terminal only wrapped in its DCS (with allow-passthrough on). */
function throughTmux(sequence: string, isInTmux: boolean): string {
	return isInTmux ? `\u001bPtmux;${sequence.replaceAll('\u001b', '\u001b\u001b')}\u001b\\` : sequence;
}

/** OSC 9 (iTerm2, WezTerm, kitty, Windows Terminal, foot…): a desktop notification with `text`. */
export function osc9(text: string, isInTmux: boolean): string {
	return throughTmux(`\u001b]9;${text}\u0007`, isInTmux);
}

/** OSC 777 (rxvt-unicode, VTE terminals such as GNOME Terminal's notify extension): title and body. */
export function osc777(title: string, body: string, isInTmux: boolean): string {
	return throughTmux(`\u001b]777;notify;${title};${body}\u0007`, isInTmux);
}
