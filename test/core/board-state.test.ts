import {describe, expect, it} from 'vitest';
import {keysShown} from '../../src/core/board/key-labels.ts';
import {BoardCommand, helpBar, helpLines, KEY_TABLE, matchBinding} from '../../src/core/board/keymap.ts';
import {selectScreen} from '../../src/core/board/screen.ts';
import {selectLanes, selectQueue, stopBlockedReason, toRowView, windowLines} from '../../src/core/board/selectors.ts';
import {initialBoardState, reduceBoard, type BoardState} from '../../src/core/board/state.ts';
import {selectTimeline} from '../../src/core/board/timeline-view.ts';
import {laneTone, statusTone} from '../../src/core/board/tone.ts';
import {STATUSES} from '../../src/core/status.ts';
import type {LedgerEvent} from '../../src/core/events.ts';
import {computeHumanQueue} from '../../src/core/human-queue.ts';
import {boardFixtureEvents, FIXED_NOW, foldTasks} from '../helpers/board-fixture.ts';

const tasks = foldTasks(boardFixtureEvents());

function loaded(): BoardState {
	const queue = computeHumanQueue({
		signals: [{taskId: 't-failed', lane: 'failed', reason: 'exit 1', at: FIXED_NOW - 20 * 60_000, seq: 1}],
		acknowledgedAt: new Map(),
		successes: [],
		taskKeys: new Map(),
	});
	return reduceBoard(initialBoardState(), {type: 'ledger-read', tasks: [...tasks.values()], queue, lastSeq: 27, isFull: true});
}

describe('board selectors', () => {
	it('puts every fixture task in its lane', () => {
		const {lines, counts} = selectLanes(tasks.values(), FIXED_NOW, {filter: ''});
		expect(counts).toEqual({running: 3, stalled: 1, lost: 1, untracked: 1, ended: 3});
		const laneOf = (id: string) => lines.flatMap(line => (line.kind === 'row' && line.row.id === id ? [line.row.lane] : []))[0];
		expect(laneOf('t-stalled')).toBe('stalled');
		expect(laneOf('t-lost')).toBe('lost');
		expect(laneOf('u-7070')).toBe('untracked');
		expect(laneOf('t-queued')).toBe('running');
		expect(laneOf('t-done')).toBe('ended');
	});

	it('writes unknown values as unknown and undeclared progress as not reported, never 0', () => {
		const row = toRowView(tasks.get('t-quiet')!, FIXED_NOW);
		expect(row.progress).toBe('progress not reported');
		expect(row.tokens).toBe('unknown');
		expect(row.pid).toBe('unknown');
		expect(row.idle).toBe('last seen 1m ago');
		expect(row.stopBlocked).toBe('its PID is unknown');
	});

	it('shows declared progress as a bar with n/total and tokens against budget', () => {
		const row = toRowView(tasks.get('t-progress')!, FIXED_NOW);
		expect(row.progress).toBe('█████░░░░░ 2/4');
		expect(row.tokens).toBe('1.5k/40M');
		expect(row.pid).toBe('4242');
		expect(row.stopBlocked).toBeNull();
		expect(row.status).toBe('running/active');
	});

	it('drops tasks that ended before the window from recently ended', () => {
		const {counts} = selectLanes(tasks.values(), FIXED_NOW, {filter: ''}, {endedWindowMs: 30 * 60_000});
		expect(counts.ended).toBe(1);
	});

	it('lets a shorter stall threshold turn a quiet running task stalled', () => {
		expect(toRowView(tasks.get('t-progress')!, FIXED_NOW, 30).lane).toBe('stalled');
	});

	it('filters rows by id, title, source or status', () => {
		expect(selectLanes(tasks.values(), FIXED_NOW, {filter: 'schema'}).order).toEqual(['t-stalled']);
		expect(selectLanes(tasks.values(), FIXED_NOW, {filter: 'FAILED'}).order).toEqual(['t-failed']);
	});

	it('keeps the selected row inside the window', () => {
		const {lines} = selectLanes(tasks.values(), FIXED_NOW, {filter: ''});
		for (let height = 2; height <= lines.length; height += 1) {
			for (const id of ['t-queued', 't-lost', 't-done']) {
				const window = windowLines(lines, id, height);
				expect(window.lines.some(line => line.kind === 'row' && line.row.id === id)).toBe(true);
				expect(window.lines.length + (window.above ? 1 : 0) + (window.below ? 1 : 0)).toBeLessThanOrEqual(height);
			}
		}
	});

	it('shows five a lane with the rest counted', () => {
		const signals = Array.from({length: 8}, (_, index) => ({
			taskId: `t-${index}`,
			lane: 'needs' as const,
			reason: 'r',
			at: FIXED_NOW - index,
			seq: index,
		}));
		const queue = computeHumanQueue({signals, acknowledgedAt: new Map(), successes: [], taskKeys: new Map()});
		const view = selectQueue(queue, tasks, FIXED_NOW);
		expect(view.lanes[0]?.items).toHaveLength(5);
		expect(view.lanes[0]?.more).toBe(3);
	});

	it('folds heartbeats in the drill-down and says when no contract or evidence is recorded', () => {
		const events: LedgerEvent[] = boardFixtureEvents()
			.filter(event => event.taskId === 't-stalled')
			.map((event, index) => ({...event, seq: index + 1}));
		const view = selectTimeline(tasks.get('t-stalled'), events, FIXED_NOW);
		expect(view.lines.map(line => line.text)).toEqual([
			'wrapper: registered migrate the schema',
			'wrapper: started pid 5151',
			'3 heartbeats over 10m',
		]);
		expect(view.contract).toEqual([]);
		expect(view.evidence).toEqual([]);
	});

	it('gives every status a tone and every lane a tone', () => {
		expect(STATUSES.map(status => statusTone(status, null))).not.toContain(undefined);
		expect(statusTone('running', 'stalled')).toBe('warn');
		expect(statusTone('lost', null)).toBe('error');
		expect(laneTone('ended')).toBe('muted');
	});

	it('refuses to stop an ended task or one with no PID', () => {
		expect(stopBlockedReason({status: 'done', pid: 1})).toContain('already ended');
		expect(stopBlockedReason({status: 'running', pid: null})).toBe('its PID is unknown');
		expect(stopBlockedReason({status: 'running', pid: 7})).toBeNull();
	});
});

describe('board reducer', () => {
	it('moves the cursor down and up through the row order, clamped at the ends', () => {
		const state = loaded();
		const {order} = selectLanes(state.tasks.values(), FIXED_NOW, {filter: ''});
		const down = reduceBoard(state, {type: 'move', delta: 1, order});
		expect(down.selectedId).toBe(order[1]);
		const up = reduceBoard(reduceBoard(down, {type: 'move', delta: -1, order}), {type: 'move', delta: -1, order});
		expect(up.selectedId).toBe(order[0]);
	});

	it('opens a timeline and goes back with esc', () => {
		const opened = reduceBoard(loaded(), {type: 'open-timeline', taskId: 't-lost', events: []});
		expect(opened.mode).toBe('timeline');
		const back = reduceBoard(opened, {type: 'back'});
		expect(back.mode).toBe('list');
		expect(back.timeline).toBeNull();
	});

	it('returns to Needs you when the timeline was opened from there', () => {
		const fromQueue = reduceBoard(reduceBoard(loaded(), {type: 'toggle-focus'}), {
			type: 'open-timeline',
			taskId: 't-failed',
			events: [],
		});
		expect(reduceBoard(fromQueue, {type: 'back'}).mode).toBe('queue');
	});

	it('asks before stopping and returns to where it was on cancel', () => {
		const asking = reduceBoard(loaded(), {type: 'ask-stop', taskId: 't-progress'});
		expect(asking.mode).toBe('confirm');
		expect(selectScreen(asking, FIXED_NOW, {width: 100, height: 30}).confirm).toContain(
			'Stop t-progress “fix csv export” (pid 4242)?',
		);
		expect(reduceBoard(asking, {type: 'back'}).mode).toBe('list');
	});

	it('applies a filter typed in the prompt', () => {
		let state = reduceBoard(loaded(), {type: 'start-prompt', kind: 'filter'});
		state = reduceBoard(state, {type: 'prompt-input', text: 'csv '});
		state = reduceBoard(state, {type: 'prompt-commit'});
		expect(state.filter).toBe('csv');
		expect(selectScreen(state, FIXED_NOW, {width: 100, height: 30}).order).toEqual(['t-progress']);
	});

	it('merges a partial read into the tasks it holds and keeps the highest sequence', () => {
		const state = loaded();
		const changed = {...tasks.get('t-quiet')!, title: 'renamed'};
		const next = reduceBoard(state, {type: 'ledger-read', tasks: [changed], queue: state.queue, lastSeq: 30, isFull: false});
		expect(next.tasks.size).toBe(state.tasks.size);
		expect(next.tasks.get('t-quiet')?.title).toBe('renamed');
		expect(next.lastSeq).toBe(30);
	});

	it('toggles help over any browsing mode and returns to it', () => {
		const help = reduceBoard(reduceBoard(loaded(), {type: 'toggle-focus'}), {type: 'toggle-help'});
		expect(help.mode).toBe('help');
		expect(reduceBoard(help, {type: 'toggle-help'}).mode).toBe('queue');
	});
});

describe('key table', () => {
	it.each([
		['j', {}, 'list', BoardCommand.down],
		['', {downArrow: true}, 'list', BoardCommand.down],
		['k', {}, 'list', BoardCommand.up],
		['', {upArrow: true}, 'queue', BoardCommand.up],
		['k', {}, 'queue', BoardCommand.acknowledge],
		['', {return: true}, 'list', BoardCommand.open],
		['', {escape: true}, 'timeline', BoardCommand.back],
		['s', {}, 'list', BoardCommand.stop],
		['y', {}, 'confirm', BoardCommand.confirm],
		['', {escape: true}, 'confirm', BoardCommand.back],
		['n', {}, 'confirm', BoardCommand.cancel],
		['', {escape: true}, 'input', BoardCommand.back],
		['', {return: true}, 'input', BoardCommand.submit],
		['', {pageDown: true}, 'list', BoardCommand.pageDown],
		['', {pageUp: true}, 'log', BoardCommand.pageUp],
		['g', {}, 'list', BoardCommand.top],
		['G', {}, 'timeline', BoardCommand.bottom],
		['', {end: true}, 'log', BoardCommand.bottom],
		['l', {}, 'list', BoardCommand.log],
		['o', {}, 'queue', BoardCommand.sort],
		['/', {}, 'list', BoardCommand.filter],
		['?', {}, 'timeline', BoardCommand.help],
		['q', {}, 'list', BoardCommand.quit],
		['c', {ctrl: true}, 'help', BoardCommand.interrupt],
		['c', {ctrl: true}, 'input', BoardCommand.interrupt],
		['c', {ctrl: true}, 'effects', BoardCommand.interrupt],
		[' ', {}, 'effects', BoardCommand.mark],
		['a', {}, 'list', BoardCommand.approve],
		['a', {}, 'effects', BoardCommand.approve],
		['x', {}, 'effects', BoardCommand.sendBack],
		['x', {}, 'timeline', BoardCommand.sendBack],
		['k', {}, 'effects', BoardCommand.up],
		['', {tab: true}, 'effects', BoardCommand.focus],
		['', {escape: true}, 'effects', BoardCommand.back],
	] as const)('maps %j %j in %s to its command', (input, key, mode, command) => {
		expect(matchBinding(input, key, mode)?.command).toBe(command);
	});

	it.each([
		['s', 'confirm'],
		['y', 'list'],
		['k', 'timeline-ack'],
		[' ', 'list'],
	] as const)('ignores %s where it means nothing (%s)', (input, mode) => {
		if (mode === 'timeline-ack') expect(matchBinding(input, {}, 'timeline')?.command).not.toBe(BoardCommand.acknowledge);
		else expect(matchBinding(input, {}, mode)).toBeUndefined();
	});

	it('lists each key once in help, keys shared by two bindings on one line', () => {
		// The whole table: a past board's (board --at) help, which has the live board's keys and its stepping keys.
		const lines = helpLines(KEY_TABLE);
		const parts = (label: string) => (label === '/' ? ['/'] : label.split('/'));
		const keys = lines.flatMap(line => parts(line.keys));
		expect(keys).toEqual([...new Set(keys)]);
		for (const binding of KEY_TABLE) {
			for (const part of keysShown(binding.keys)) expect(keys).toContain(part);
		}
		expect(lines.find(line => line.keys === 'k/↑')?.description).toBe(
			'move up; in Needs you, k acknowledges the entry under the cursor',
		);
		expect(lines.find(line => line.keys === 'enter/→/←')?.description).toContain('in a prompt, keep what was typed');
	});

	it('draws help and the help bar from the same table, saying what is not built', () => {
		const lines = helpLines();
		expect(lines.find(line => line.keys === 'a')?.description).not.toContain('not built yet');
		// x sends back a task, and in Held effects an order: one help line says both.
		const x = lines.filter(line => line.keys === 'x');
		expect(x).toHaveLength(1);
		expect(x[0]?.description).toContain("in Held effects, send the order's held effects back");
		expect(x[0]?.description).not.toContain('not built');
		const bar = helpBar('list', new Set([BoardCommand.stop]));
		expect(bar.find(item => item.keys === 's')?.isDisabled).toBe(true);
		expect(bar.find(item => item.keys === 'a')?.isNotBuilt).toBe(false);
		expect(bar.find(item => item.keys === 'x')?.isNotBuilt).toBe(false);
		const effectsBar = helpBar('effects', new Set());
		expect(effectsBar.map(item => item.keys)).toEqual(expect.arrayContaining(['space', 'a', 'x']));
		expect(effectsBar.find(item => item.keys === 'x')?.isNotBuilt).toBe(false);
		expect(bar.map(item => item.keys)).toContain('q');
	});
});
