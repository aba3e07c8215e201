import {describe, expect, it} from 'vitest';
import {BoardCommand, helpLines, KEY_TABLE, keyTableFor, matchBinding} from '../../src/core/board/keymap.ts';
import {
	MINUTE_MS,
	pastHeaderLine,
	pastRefusal,
	stepMoment,
	type MomentIndex,
	type MomentStep,
	type PastMoment,
} from '../../src/core/board/past-moment.ts';
import {selectScreen} from '../../src/core/board/screen.ts';
import {initialBoardState} from '../../src/core/board/state.ts';

/** A ledger of events arrived at these times (seq 1 is the first); null: from before arrival was kept. */
function indexOf(arrivals: readonly (number | null)[]): MomentIndex {
	return {
		lastSeq: () => arrivals.length,
		arrivalOf: seq => arrivals[seq - 1] ?? null,
		seqArrivedBy: at => {
			let last = 0;
			arrivals.forEach((arrival, i) => {
				if (arrival !== null && arrival <= at) last = i + 1;
			});
			return last;
		},
	};
}

const T0 = Date.UTC(2026, 4, 1, 3, 0, 0);
// Two events in one millisecond, one 90 s later, one five minutes later.
const ARRIVALS = [T0, T0, T0 + 90_000, T0 + 300_000];
const CLOCK = T0 + 600_000;
const index = indexOf(ARRIVALS);
const past = (seq: number, now: number): PastMoment => ({seq, now, isNow: false});
const NOW: PastMoment = {seq: 4, now: CLOCK, isNow: true};
const step = (moment: PastMoment, how: MomentStep, at = index) => stepMoment(moment, how, at, CLOCK);

describe('stepping a board at a past moment', () => {
	it('by event: the ledger gains or loses its last event, and now is that event’s arrival', () => {
		expect(step(past(3, T0 + 90_000), 'event-back')).toEqual({moment: past(2, T0)});
		expect(step(past(2, T0), 'event-back')).toEqual({moment: past(1, T0)});
		expect(step(past(2, T0), 'event-forward')).toEqual({moment: past(3, T0 + 90_000)});
		// A moment named by a time between events steps from the last event that had arrived.
		expect(step(past(3, T0 + 200_000), 'event-back')).toEqual({moment: past(2, T0)});
		expect(step(past(3, T0 + 200_000), 'event-forward')).toEqual({moment: past(4, T0 + 300_000)});
	});

	it('by event: back stops at the first event, forward past the newest is now', () => {
		expect(step(past(1, T0), 'event-back')).toEqual({stays: 'already at the first event'});
		expect(step(past(0, T0 - 1), 'event-back')).toEqual({stays: 'before the first event: nothing earlier'});
		expect(step(past(4, T0 + 300_000), 'event-forward')).toEqual({moment: NOW});
		expect(step(NOW, 'event-forward')).toEqual({stays: 'already at now: no event after the newest yet'});
		// From now, back is the ledger without its newest event.
		expect(step(NOW, 'event-back')).toEqual({moment: past(3, T0 + 90_000)});
	});

	it('by minute: now moves sixty seconds and the events are those arrived by then; past the clock is now', () => {
		expect(step(past(4, T0 + 300_000), 'minute-back')).toEqual({moment: past(3, T0 + 240_000)});
		expect(step(past(3, T0 + 90_000), 'minute-back')).toEqual({moment: past(2, T0 + 30_000)});
		expect(step(past(2, T0 + 30_000), 'minute-back')).toEqual({moment: past(0, T0 - 30_000)});
		expect(step(past(0, T0 - 30_000), 'minute-back')).toEqual({stays: 'before the first event: nothing earlier'});
		expect(step(past(0, T0 - 30_000), 'minute-forward')).toEqual({moment: past(2, T0 + 30_000)});
		expect(step(past(4, CLOCK - 59_999), 'minute-forward')).toEqual({moment: NOW});
		// Landing less than a minute before the clock is now: a minute back from now and one forward
		// come back to now, though the clock moved on between the two keys.
		expect(step(past(4, CLOCK - 119_000), 'minute-forward')).toEqual({moment: NOW});
		expect(step(past(4, CLOCK - MINUTE_MS - 3_000), 'minute-forward')).toEqual({moment: NOW});
		expect(step(past(4, CLOCK - 121_000), 'minute-forward')).toEqual({moment: past(4, CLOCK - 61_000)});
		expect(step(NOW, 'minute-forward')).toEqual({stays: 'already at now'});
		// From now, a minute back is a minute before the clock.
		expect(step(NOW, 'minute-back')).toEqual({moment: past(4, CLOCK - MINUTE_MS)});
		expect(step(past(1, T0), 'now')).toEqual({moment: NOW});
		expect(step(NOW, 'now')).toEqual({stays: 'already at now'});
	});

	it('stepping forward, by event or by minute, from any moment reaches now', () => {
		for (const how of ['event-forward', 'minute-forward'] as const) {
			for (const start of [past(0, T0 - 5 * MINUTE_MS), past(1, T0), past(3, T0 + 100_000), past(4, T0 + 300_000)]) {
				let moment = start;
				let steps = 0;
				while (!moment.isNow) {
					const result = step(moment, how);
					if (!('moment' in result)) throw new Error(`stuck at ${JSON.stringify(moment)}: ${result.stays}`);
					// Time never goes back as it steps forward.
					expect(result.moment.now).toBeGreaterThanOrEqual(moment.now);
					moment = result.moment;
					steps += 1;
					expect(steps).toBeLessThan(20);
				}
				expect(moment).toEqual(NOW);
			}
		}
	});

	it('an event from before arrival was kept keeps the time shown', () => {
		const legacy = indexOf([null, null, T0]);
		expect(step(past(3, T0), 'event-back', legacy)).toEqual({moment: past(2, T0)});
	});
});

describe('the keys of a board at a past moment', () => {
	const binding = (command: BoardCommand) => KEY_TABLE.find(each => each.command === command)!;

	it('refuse every key that would act, saying so, and let moving, opening, filtering, help and quit be', () => {
		for (const command of [
			BoardCommand.stop,
			BoardCommand.approve,
			BoardCommand.mark,
			BoardCommand.sendBack,
			BoardCommand.acknowledge,
			BoardCommand.log,
		]) {
			expect(pastRefusal(binding(command)), command).toMatch(
				/^read-only, a past moment \(board --at\): .+; controlroom without --at is the live board$/,
			);
		}
		for (const command of [BoardCommand.down, BoardCommand.open, BoardCommand.filter, BoardCommand.help, BoardCommand.quit]) {
			expect(pastRefusal(binding(command)), command).toBeNull();
		}
	});

	it('step with [ ] { } and >, listed in ? help; the live board neither matches nor lists them', () => {
		expect(matchBinding('[', {}, 'list', keyTableFor(true))?.command).toBe(BoardCommand.eventBack);
		expect(matchBinding('}', {}, 'timeline', keyTableFor(true))?.command).toBe(BoardCommand.minuteForward);
		expect(matchBinding('>', {}, 'queue', keyTableFor(true))?.command).toBe(BoardCommand.toNow);
		expect(matchBinding('[', {}, 'list')).toBeUndefined();
		expect(matchBinding('[', {}, 'list', keyTableFor(false))).toBeUndefined();
		const pastHelp = helpLines(keyTableFor(true)).map(line => line.keys);
		// First, so a short terminal's help cuts other keys before them.
		expect(pastHelp.slice(0, 3)).toEqual(['[/]', '{/}', '>']);
		expect(pastHelp).toEqual(expect.arrayContaining(helpLines().map(line => line.keys)));
		expect(helpLines().map(line => line.keys)).not.toEqual(expect.arrayContaining(['[/]']));
	});
});

describe('the line under a past board’s header', () => {
	const view = {...past(4211, Date.UTC(2026, 4, 1, 3, 12, 7)), latestSeq: 4380};

	it('says it is a past view, of which moment, and read-only, at 160 and at 80 columns', () => {
		const wide = pastHeaderLine(view, 160);
		expect(wide).toBe(
			'◷ past view: the board as it was at 2026-05-01T03:12:07Z, after event 4211 of 4380 · read-only · [ ] one event · { } one minute · > now',
		);
		const narrow = pastHeaderLine(view, 80);
		expect([...narrow].length).toBeLessThanOrEqual(80);
		expect(narrow).toContain('2026-05-01T03:12:07Z');
		expect(narrow).toContain('[ ] { } > step');
		expect(pastHeaderLine({...view, now: view.now + 412}, 160)).toContain('at 2026-05-01T03:12:07.412Z,');
		expect(narrow).toContain('read-only');
		expect(pastHeaderLine({...view, seq: 0}, 160)).toContain('before the first event');
		expect(pastHeaderLine({...view, isNow: true}, 80)).toMatch(/^◷ at now/);
	});

	it('takes a row under the header, greys the keys that act, and gives the lanes the rest', () => {
		for (const [width, height] of [
			[160, 45],
			[80, 24],
		] as const) {
			const live = selectScreen(initialBoardState(), 0, {width, height});
			const screen = selectScreen(initialBoardState(), view.now, {width, height}, {past: view});
			expect(live.past).toBeUndefined();
			expect(screen.past?.text).toBe(pastHeaderLine(view, width));
			expect(screen.lanes.height).toBe(live.lanes.height - 1);
			const stop = screen.bar.find(item => item.command === BoardCommand.stop);
			if (stop) expect(stop.isDisabled).toBe(true);
		}
	});
});
