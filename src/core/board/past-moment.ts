import {BoardCommand, keyWordOf, type KeyBinding} from './keymap.ts';

/**
 * The moment a past board shows (`board --at`, docs/flight-recorder.md): the last event that had
 * arrived (`seq`, 0 before the first) and the time that was "now" then. `isNow`: stepped forward to
 * now, where the board follows the ledger as events arrive, and stays read-only.
 */
export type PastMoment = {readonly seq: number; readonly now: number; readonly isNow: boolean};

/** The moment a past board's header is drawn from: the moment, and the ledger's newest event. */
export type PastView = PastMoment & {readonly latestSeq: number};

/** What stepping reads of the ledger, as functions, so the rules stay pure. */
export type MomentIndex = {
	/** The ledger's newest event now. */
	lastSeq(): number;
	/** When event `seq` arrived; null for an event from before arrival was kept. */
	arrivalOf(seq: number): number | null;
	/** The last event that had arrived by `at` (0: none). */
	seqArrivedBy(at: number): number;
};

/** A step through time: one event, or one minute, back or forward; or straight to now. */
export type MomentStep = 'event-back' | 'event-forward' | 'minute-back' | 'minute-forward' | 'now';

export const MINUTE_MS = 60_000;

/** Where a step lands, or why it stays (already at the first event, already at now). */
export type StepResult = {readonly moment: PastMoment} | {readonly stays: string};

const atNow = (index: MomentIndex, clockNow: number): PastMoment => ({seq: index.lastSeq(), now: clockNow, isNow: true});

/** Right after event `seq`, "now" its arrival (a legacy event with none keeps the time shown). */
const afterEvent = (index: MomentIndex, seq: number, shown: number): PastMoment => ({
	seq,
	now: index.arrivalOf(seq) ?? shown,
	isNow: false,
});

/** The moment at `at`: every event arrived by then; a time past `nowFrom` is now (the clock's). */
const atTime = (index: MomentIndex, at: number, clockNow: number, nowFrom = clockNow): PastMoment =>
	at > nowFrom ? atNow(index, clockNow) : {seq: index.seqArrivedBy(at), now: at, isNow: false};

/**
 * The stepping rules of a past board. By event, the ledger gains or loses its last event and "now"
 * is that event's arrival (as `--at SEQ`); by minute, "now" moves sixty seconds and the events are
 * those arrived by then (as `--at TIME`). Back stops at the first event (by minute, at the minute
 * before it); forward past the newest event, or to less than a minute before the clock, is now.
 * From now, back steps from the clock and the newest event.
 */
export function stepMoment(moment: PastMoment, step: MomentStep, index: MomentIndex, clockNow: number): StepResult {
	const shown = moment.isNow ? clockNow : moment.now;
	const seq = moment.isNow ? index.lastSeq() : moment.seq;
	switch (step) {
		case 'now':
			return moment.isNow ? {stays: 'already at now'} : {moment: atNow(index, clockNow)};
		case 'event-forward':
			if (moment.isNow) return {stays: 'already at now: no event after the newest yet'};
			return seq + 1 > index.lastSeq() ? {moment: atNow(index, clockNow)} : {moment: afterEvent(index, seq + 1, shown)};
		case 'event-back':
			if (seq <= 1) return {stays: seq === 1 ? 'already at the first event' : 'before the first event: nothing earlier'};
			return {moment: afterEvent(index, seq - 1, shown)};
		case 'minute-forward':
			if (moment.isNow) return {stays: 'already at now'};
			// Less than a minute before the clock is now: `{` then `}` comes back to now, though the clock moved on meanwhile.
			return {moment: atTime(index, shown + MINUTE_MS, clockNow, clockNow - MINUTE_MS)};
		case 'minute-back': {
			if (seq === 0) return {stays: 'before the first event: nothing earlier'};
			return {moment: atTime(index, shown - MINUTE_MS, clockNow)};
		}
	}
}

/** The step each key of a past board takes. */
export const STEP_OF: Readonly<Partial<Record<BoardCommand, MomentStep>>> = {
	[BoardCommand.eventBack]: 'event-back',
	[BoardCommand.eventForward]: 'event-forward',
	[BoardCommand.minuteBack]: 'minute-back',
	[BoardCommand.minuteForward]: 'minute-forward',
	[BoardCommand.toNow]: 'now',
};

/** What each key that acts would have done: a past board does none of it. */
const REFUSED: Readonly<Partial<Record<BoardCommand, string>>> = {
	[BoardCommand.stop]: 'stops nothing',
	[BoardCommand.approve]: 'approves and allows nothing',
	[BoardCommand.mark]: 'marks nothing to approve',
	[BoardCommand.sendBack]: 'sends nothing back',
	[BoardCommand.acknowledge]: 'acknowledges nothing',
	[BoardCommand.log]: "shows no output: a task's output is kept as it is now, not as it was then",
};

/** The commands a past board refuses, greyed in its help bar. */
export const PAST_REFUSED: readonly BoardCommand[] = Object.keys(REFUSED) as BoardCommand[];

/** Why a key does nothing on a past board, or null when it may act (moving, opening, filtering, help, quit). */
export function pastRefusal(binding: KeyBinding): string | null {
	const what = REFUSED[binding.command];
	if (what === undefined) return null;
	return `read-only, a past moment (board --at): ${keyWordOf(binding)} ${what}; controlroom without --at is the live board`;
}

/** `2026-05-01T03:12:07.412Z`: the moment as `--at` takes it back (milliseconds only when not 0: events a step apart often share a second). */
export function momentClock(at: number): string {
	const iso = new Date(at).toISOString();
	return iso.endsWith('.000Z') ? `${iso.slice(0, 19)}Z` : iso;
}

const KEYS_LONG = '[ ] one event · { } one minute · > now';
const KEYS_SHORT = '[ ] event { } minute > now';

/**
 * The line under a past board's header: that it is a past view, of which moment (the time that was
 * now, and the last event that had arrived of how many the ledger holds), that it is read-only, and
 * its keys, each shortened in turn to fit `width`. At now it says so, and that it follows the ledger.
 */
export function pastHeaderLine(view: PastView, width: number): string {
	const {seq, latestSeq} = view;
	const variants = view.isNow
		? [
				`◷ at now: the board as the ledger is now (event ${latestSeq}), following it · read-only (board --at) · [ { step back`,
				`◷ at now (event ${latestSeq}), following · read-only · [ { step back`,
				`◷ at now · read-only · [ { back`,
			]
		: [
				`◷ past view: the board as it was at ${momentClock(view.now)}, ${seq === 0 ? 'before the first event' : `after event ${seq} of ${latestSeq}`} · read-only · ${KEYS_LONG}`,
				`◷ past view at ${momentClock(view.now)}, event ${seq} of ${latestSeq} · read-only · ${KEYS_SHORT}`,
				`◷ past ${momentClock(view.now)} · event ${seq}/${latestSeq} · read-only · [ ] { } > step`,
				`◷ past ${momentClock(view.now)} · event ${seq}/${latestSeq} · read-only`,
				`◷ past ${momentClock(view.now)} · ${seq}/${latestSeq}`,
			];
	return variants.find(text => [...text].length <= width) ?? variants.at(-1) ?? '';
}
