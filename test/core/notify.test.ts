import {describe, expect, it} from 'vitest';
import type {HumanQueue} from '../../src/core/human-queue.ts';
import {
	admitNotification,
	desktopText,
	freshEntries,
	NO_NOTIFICATIONS,
	NOTIFY_BURST,
	NOTIFY_WINDOW_MS,
	osc777,
	osc9,
	queueKeys,
} from '../../src/core/notify.ts';

const queue = (items: {taskId: string; at: number; reason?: string}[]): HumanQueue => ({
	lanes: [{name: 'needs', total: items.length, items: items.map(item => ({seq: 1, reason: 'asks', ...item}))}],
	total: items.length,
});

describe('notifications for Needs you', () => {
	it('announces an entry once: a later read of the same entry is not new, a new wait of the same task is', () => {
		const first = queue([{taskId: 'c-1', at: 100}]);
		const notified = new Set(queueKeys(first));
		expect(freshEntries(first, notified)).toEqual([]);
		const second = queue([
			{taskId: 'c-1', at: 100},
			{taskId: 'c-2', at: 200},
		]);
		expect(freshEntries(second, notified).map(entry => entry.taskId)).toEqual(['c-2']);
		expect(freshEntries(queue([{taskId: 'c-1', at: 300}]), notified).map(entry => entry.key)).toEqual(['needs::c-1@300']);
	});

	it(`lets ${NOTIFY_BURST} through a minute, counts the rest into the next one`, () => {
		let state = NO_NOTIFICATIONS;
		const allowed: boolean[] = [];
		for (let index = 0; index < NOTIFY_BURST + 2; index += 1) {
			const admitted = admitNotification(state, 1000 + index);
			allowed.push(admitted.isAllowed);
			state = admitted.state;
		}
		expect(allowed).toEqual([...Array<boolean>(NOTIFY_BURST).fill(true), false, false]);
		expect(state.suppressed).toBe(2);
		const later = admitNotification(state, 1000 + NOTIFY_WINDOW_MS);
		expect(later.isAllowed).toBe(true);
		expect(later.state.suppressed).toBe(0);
	});

	it("keeps an agent's text from ending or forging the escape sequence", () => {
		const [entry] = freshEntries(
			queue([{taskId: 'c-1', at: 1, reason: 'evil\u0007\u001b]9;forged\u001b\\; rm\nmore'}]),
			new Set(),
		);
		const text = desktopText({...entry!, suppressed: 3});
		// eslint-disable-next-line no-control-regex -- control characters are what must not be there
		expect(text).not.toMatch(/[\u0000-\u001f\u007f;]/);
		expect(text).toMatch(/^needs: c-1: evil.*\(\+3 more\)$/);
		expect(desktopText({...entry!, reason: 'x'.repeat(1000), suppressed: 0}).length).toBeLessThanOrEqual(200);
	});

	it('writes OSC 9 and OSC 777, wrapped for tmux passthrough inside tmux', () => {
		expect(osc9('hi', false)).toBe('\u001b]9;hi\u0007');
		expect(osc9('hi', true)).toBe('\u001bPtmux;\u001b\u001b]9;hi\u0007\u001b\\');
		expect(osc777('controlroom', 'hi', false)).toBe('\u001b]777;notify;controlroom;hi\u0007');
	});
});
