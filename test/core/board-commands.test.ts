import {describe, expect, it} from 'vitest';
import {
	callAnsweredNotice,
	callFailedNotice,
	callStartedNotice,
	type BoardCall,
	type CallAnswer,
} from '../../src/core/board/command-calls.ts';
import {
	commandTarget,
	planBoardCommand,
	planPendingSendBack,
	planSubmit,
	INTERRUPT_STATUS,
	QUIT_STATUS,
	type BoardAbilities,
	type BoardPlan,
} from '../../src/core/board/command-plan.ts';
import {KEY_TABLE, matchBinding, type BoardMode, type KeyLike} from '../../src/core/board/keymap.ts';
import {approvalLines} from '../../src/core/board/approval-view.ts';
import {selectScreen} from '../../src/core/board/screen.ts';
import {initialBoardState, reduceBoard, type BoardAction, type BoardState} from '../../src/core/board/state.ts';
import {foldOrders, type OrderEvent} from '../../src/core/effects/fold.ts';
import {EventType, newEvent, type EventDataOf, type EventTypeName} from '../../src/core/events.ts';
import {computeHumanQueue} from '../../src/core/human-queue.ts';
import {boardFixtureEvents, FIXED_NOW, foldTasks} from '../helpers/board-fixture.ts';

const MIN = 60_000;
/** When the key is pressed: a minute after the fixture's now. */
const NOW = FIXED_NOW + MIN;
const ALL_WIRED: BoardAbilities = {canStop: true, canSendBack: true, canApprove: true, canSendBackOrder: true};

function ev<T extends EventTypeName>(taskId: string, type: T, minutesAgo: number, data: EventDataOf<T>, source = 'wrapper') {
	return newEvent(type, data, {taskId, at: FIXED_NOW - minutesAgo * MIN, source});
}

/** Tasks beyond the board fixture: a review that needs a person, a claim handed in, a task on another host. */
function moreTasks() {
	return foldTasks([
		ev('t-review', EventType.registered, 30, {title: 'review the parser', cwd: '/repo/r'}),
		ev('t-review', EventType.started, 30, {pid: 3131}),
		ev('t-review', EventType.exited, 10, {exitCode: 0}),
		ev('k-claim', EventType.registered, 20, {title: 'fix the export', role: 'claim'}, 'cli'),
		ev('k-claim', EventType.claimTaken, 20, {contract: 'c-1', holder: 'worker-2'}, 'cli'),
		ev('k-claim', EventType.claimHandedIn, 5, {acceptor: 'lead'}, 'cli'),
		// A Claude Code session its hooks recorded, ended mid-turn: failed, with no command to run again.
		ev('c-failed', EventType.registered, 25, {title: 'fix the flaky upload test', cwd: '/repo/u'}, 'claude'),
		ev('c-failed', EventType.started, 25, {pid: 5252}, 'claude'),
		ev('c-failed', EventType.exited, 20, {exitCode: 1}, 'claude'),
		ev('t-remote', EventType.registered, 15, {title: 'deploy the docs', cwd: '/srv/docs'}),
		ev('t-remote', EventType.started, 15, {pid: 4343}),
		ev('t-remote', EventType.heartbeat, 1, {}),
	]);
}

let orderAt = FIXED_NOW - 3 * MIN;
function orderEvent<T extends OrderEvent['type']>(type: T, data: EventDataOf<T>): OrderEvent {
	orderAt += 1000;
	return {...newEvent(type, data, {taskId: 'o-42', at: orderAt, source: 'gateway'}), seq: orderAt} as OrderEvent;
}

/** Order o-42 with two effects held (not expired at NOW). */
function heldOrders() {
	const held = (seq: number) =>
		orderEvent(EventType.effectHeld, {
			id: `fs/write_file#${seq}`,
			seq,
			upstream: 'fs',
			tool: 'write_file',
			args: {path: `/f${seq}`},
			expiresAt: NOW + 60 * MIN,
		});
	const records = foldOrders([
		orderEvent(EventType.orderOpened, {worker: 'worker-1', budgetCalls: 10, expiresMs: 3_600_000, workerTask: 't-1'}),
		held(1),
		held(2),
	]);
	return {records: [...records.values()], deadApprovers: []};
}

/** The whole board: the fixture tasks and the ones above, Needs you with a need, a failure, a review and a hand-in. */
function board(...actions: BoardAction[]): BoardState {
	const local = [...foldTasks(boardFixtureEvents()).values(), ...moreTasks().values()];
	const tasks = local.map(task => (task.id === 't-remote' ? {...task, host: 'h2'} : task));
	const queue = computeHumanQueue({
		signals: [
			{taskId: 't-failed', lane: 'failed', reason: 'exit 1', at: FIXED_NOW - 20 * MIN, seq: 23},
			{taskId: 't-review', lane: 'reviews', reason: 'FIX 2', at: FIXED_NOW - 9 * MIN, seq: 30},
			{taskId: 't-quiet', lane: 'needs', reason: 'which branch should I target?', at: FIXED_NOW - 5 * MIN, seq: 27},
			{taskId: 'k-claim', lane: 'waiting', reason: 'handed in to lead', at: FIXED_NOW - 4 * MIN, seq: 31},
		],
		acknowledgedAt: new Map(),
		successes: [],
		taskKeys: new Map(),
	});
	const loaded = reduceBoard(initialBoardState(), {
		type: 'ledger-read',
		tasks,
		pending: [{key: 'h2/t-remote', verb: 'stop'}],
		queue,
		lastSeq: 31,
		isFull: true,
		orders: heldOrders(),
	});
	return actions.reduce(reduceBoard, loaded);
}

/** An empty board: nothing read yet. */
const empty = () =>
	reduceBoard(initialBoardState(), {type: 'ledger-read', tasks: [], queue: {lanes: [], total: 0}, lastSeq: 0, isFull: true});

const onRow = (taskId: string) => board({type: 'select', taskId, index: 0});
const SIZE = {width: 160, height: 45};
const screenOf = (state: BoardState) => selectScreen(state, FIXED_NOW, SIZE);
/** Needs you focused, the cursor on its `index`th entry. */
function inQueueAt(index: number): BoardState {
	const focused = board({type: 'toggle-focus'});
	return reduceBoard(focused, {type: 'move', delta: index, order: screenOf(focused).queueOrder.map(item => item.taskId)});
}

/** Where a key is pressed: the board, its mode and what is under the cursor. */
const TARGETS: Record<string, () => BoardState> = {
	'no selection': empty,
	'a task with unknown PID': () => onRow('t-quiet'),
	'a running task': () => onRow('t-progress'),
	'a fleet task, its stop pending on its host': () => onRow('h2/t-remote'),
	'a lost task': () => onRow('t-lost'),
	'an ended task': () => onRow('t-done'),
	'a failed task': () => onRow('t-failed'),
	'a review waiting for a person': () => onRow('t-review'),
	'a claim handed in': () => onRow('k-claim'),
	'a failed Claude session': () => onRow('c-failed'),
	'a queue entry (a failure)': () => inQueueAt(0),
	'a queue entry (a need)': () => inQueueAt(2),
	'a held effect': () => board({type: 'toggle-focus'}, {type: 'toggle-focus'}),
	'empty Held effects': () => reduceBoard(reduceBoard(empty(), {type: 'toggle-focus'}), {type: 'toggle-focus'}),
	'an open timeline': () => board({type: 'open-timeline', taskId: 't-progress', events: []}),
	'an open log': () => board({type: 'open-log', taskId: 't-quiet'}),
};

const KEYS: Record<string, readonly [string, KeyLike]> = {
	enter: ['', {return: true}],
	esc: ['', {escape: true}],
	space: [' ', {}],
	tab: ['', {tab: true}],
	'ctrl+c': ['c', {ctrl: true}],
};

/** What pressing `key` on `state` comes to, through the one key table. */
function press(state: BoardState, key: string, abilities = ALL_WIRED): BoardPlan {
	const [input, flags] = KEYS[key] ?? [key, {}];
	const binding = matchBinding(input, flags, state.mode);
	if (!binding) throw new Error(`${key} means nothing in ${state.mode}`);
	return planBoardCommand(state, screenOf(state), binding, abilities, NOW);
}

const refused = (message: string, actions: readonly BoardAction[] = []): BoardPlan => ({kind: 'refuse', actions, message});
const acts = (...actions: BoardAction[]): BoardPlan => ({kind: 'act', actions});
const info = (text: string): BoardAction => ({type: 'notify', notice: {tone: 'info', text}});
const opens = (taskId: string): BoardPlan => ({kind: 'act', actions: [], effect: {kind: 'open-timeline', taskId}});
const calls = (actions: readonly BoardAction[], call: BoardCall): BoardPlan => ({
	kind: 'act',
	actions,
	effect: {kind: 'call', call},
});
const HELD_1 = {orderId: 'o-42', id: 'fs/write_file#1'};
const HELD_2 = {orderId: 'o-42', id: 'fs/write_file#2'};
const NOT_WAITING = 'x sends back a review, a failure or a hand-in';

describe('what a key does to each kind of target', () => {
	it.each<[string, string, BoardPlan]>([
		['no selection', 's', refused('no task selected')],
		['no selection', 'x', refused('x: no task selected')],
		['no selection', 'a', refused('a: no held effects to approve')],
		['no selection', 'enter', refused('no task selected')],
		['no selection', 'l', refused('no task selected')],
		['a task with unknown PID', 's', refused('s: cannot stop t-quiet: its PID is unknown')],
		['a task with unknown PID', 'x', refused(`x: t-quiet is not waiting for a person (running); ${NOT_WAITING}`)],
		['a task with unknown PID', 'enter', opens('t-quiet')],
		['a task with unknown PID', 'l', acts({type: 'open-log', taskId: 't-quiet'})],
		['a running task', 's', acts({type: 'ask-stop', taskId: 't-progress'})],
		['a running task', 'a', acts({type: 'ask-approve', refs: [HELD_1, HELD_2]})],
		['a fleet task, its stop pending on its host', 's', acts({type: 'ask-stop', taskId: 'h2/t-remote'})],
		['a fleet task, its stop pending on its host', 'enter', opens('h2/t-remote')],
		[
			'a fleet task, its stop pending on its host',
			'x',
			refused(`x: t-remote is not waiting for a person (running); ${NOT_WAITING}`),
		],
		[
			'a lost task',
			's',
			refused('s: cannot stop t-lost: it is lost (pid 6161 gone with no exit recorded): nothing is left to stop'),
		],
		['an ended task', 's', refused('s: cannot stop t-done: it has already ended (done)')],
		['an ended task', 'x', refused(`x: t-done is not waiting for a person (done); ${NOT_WAITING}`)],
		['a failed task', 'x', acts({type: 'start-prompt', kind: 'reason', taskId: 't-failed'})],
		['a failed task', 's', refused('s: cannot stop t-failed: it has already ended (failed)')],
		['a review waiting for a person', 'x', acts({type: 'start-prompt', kind: 'reason', taskId: 't-review'})],
		['a review waiting for a person', 's', refused('s: cannot stop t-review: it has already ended (done)')],
		['a claim handed in', 'x', acts({type: 'start-prompt', kind: 'reason', taskId: 'k-claim'})],
		// Refused before a reason is asked for: send-back would refuse it after.
		[
			'a failed Claude session',
			'x',
			refused('x: cannot send c-failed back: it was not started by controlroom run, so there is no command to run again'),
		],
		['a claim handed in', 's', refused('s: cannot stop k-claim: it has already ended (done)')],
		['a queue entry (a need)', 'k', calls([], {kind: 'acknowledge', taskId: 't-quiet', signalAt: FIXED_NOW - 5 * MIN, now: NOW})],
		['a queue entry (a need)', 's', refused('s: cannot stop t-quiet: its PID is unknown')],
		['a queue entry (a need)', 'x', refused(`x: t-quiet is not waiting for a person (running); ${NOT_WAITING}`)],
		['a queue entry (a failure)', 'x', acts({type: 'start-prompt', kind: 'reason', taskId: 't-failed'})],
		[
			'a queue entry (a failure)',
			'k',
			calls([], {kind: 'acknowledge', taskId: 't-failed', signalAt: FIXED_NOW - 20 * MIN, now: NOW}),
		],
		['a queue entry (a need)', 'enter', opens('t-quiet')],
		['a held effect', 'enter', opens('o-42')],
		['a held effect', 'space', acts({type: 'toggle-mark', ref: HELD_1})],
		['a held effect', 'x', acts({type: 'start-prompt', kind: 'reason', orderId: 'o-42'})],
		['a held effect', 'a', acts({type: 'ask-approve', refs: [HELD_1, HELD_2]})],
		['empty Held effects', 'enter', refused('no held effect selected')],
		['empty Held effects', 'space', refused('space: no held effect under the cursor')],
		['empty Held effects', 'x', refused('x: no held order under the cursor')],
		['empty Held effects', 'a', refused('a: no held effects to approve')],
		['an open timeline', 's', acts({type: 'ask-stop', taskId: 't-progress'})],
		['an open timeline', 'l', acts({type: 'open-log', taskId: 't-progress'})],
		['an open timeline', 'x', refused(`x: t-progress is not waiting for a person (running); ${NOT_WAITING}`)],
		['an open log', 's', refused('s: cannot stop t-quiet: its PID is unknown')],
	])('on %s, %s', (target, key, expected) => {
		const state = TARGETS[target]?.();
		if (!state) throw new Error(`no target ${target}`);
		expect(press(state, key)).toEqual(expected);
	});

	it('names the target of each mode: the open view, the Needs you entry, else the selected row', () => {
		const targetOf = (state: BoardState) => commandTarget(state, screenOf(state));
		expect(targetOf(empty())).toBeNull();
		expect(targetOf(onRow('t-done'))).toBe('t-done');
		expect(targetOf(inQueueAt(0))).toBe('t-failed');
		expect(targetOf(board({type: 'open-log', taskId: 't-lost'}))).toBe('t-lost');
		expect(targetOf(board({type: 'toggle-help'}))).toBe('t-queued');
	});
});

describe('what a key does when an adapter is not wired', () => {
	const none: BoardAbilities = {canStop: false, canSendBack: false, canApprove: false, canSendBackOrder: false};

	it('refuses stop with the reason the board was given, else a plain one', () => {
		expect(press(onRow('t-progress'), 's', {...none, stopUnavailable: 'stopping is not wired in this test'})).toEqual(
			refused('s: stopping is not wired in this test'),
		);
		expect(press(onRow('t-progress'), 's', none)).toEqual(refused('s: stop is not available'));
		// The task is checked first: an ended task is refused for what it is, wired or not.
		expect(press(onRow('t-done'), 's', none)).toEqual(refused('s: cannot stop t-done: it has already ended (done)'));
	});

	it('refuses a send-back before asking for a reason', () => {
		expect(press(onRow('t-failed'), 'x', none)).toEqual(refused('x: send back is not available here'));
	});

	it('asks to approve, and refuses at y', () => {
		const asked = board({type: 'ask-approve', refs: [HELD_1]});
		expect(press(asked, 'y', none)).toEqual(refused('a: approving is not available here', [{type: 'back'}]));
	});
});

describe('questions and prompts', () => {
	it('y on a stop closes the question, keeps the cursor on the task and stops it', () => {
		const asked = board({type: 'select', taskId: 't-progress', index: 4}, {type: 'ask-stop', taskId: 't-progress'});
		const screen = screenOf(asked);
		expect(press(asked, 'y')).toEqual(
			calls([{type: 'back'}, {type: 'select', taskId: 't-progress', index: screen.selectedIndex}, info('stopping t-progress…')], {
				kind: 'stop',
				taskId: 't-progress',
			}),
		);
	});

	it('y on a stop asked from a timeline leaves the lane cursor where it is', () => {
		const asked = board({type: 'open-timeline', taskId: 't-progress', events: []}, {type: 'ask-stop', taskId: 't-progress'});
		expect(press(asked, 'y')).toEqual(
			calls([{type: 'back'}, info('stopping t-progress…')], {kind: 'stop', taskId: 't-progress'}),
		);
	});

	it('y on an approval runs the effects it listed', () => {
		const asked = board({type: 'ask-approve', refs: [HELD_1, HELD_2]});
		expect(press(asked, 'y')).toEqual(
			calls([{type: 'back'}, info('approving 2 held effects…')], {kind: 'approve', refs: [HELD_1, HELD_2]}),
		);
	});

	it('waits with y until the whole of every call has been on the screen, then runs them', () => {
		// Two held calls with long arguments on a short terminal: the confirmation scrolls
		const longOrders = (() => {
			const records = foldOrders([
				orderEvent(EventType.orderOpened, {worker: 'worker-1', budgetCalls: 10, expiresMs: 3_600_000}),
				...[1, 2].map(seq =>
					orderEvent(EventType.effectHeld, {
						id: `fs/write_file#${seq}`,
						seq,
						upstream: 'fs',
						tool: 'write_file',
						args: {path: `/f${seq}`, content: 'line\n'.repeat(400)},
						expiresAt: NOW + 60 * MIN,
					}),
				),
			]);
			return {records: [...records.values()], deadApprovers: []};
		})();
		const small = {width: 80, height: 24};
		let state = board({type: 'ask-approve', refs: [HELD_1, HELD_2]});
		state = reduceBoard(state, {
			type: 'ledger-read',
			tasks: [],
			queue: state.queue,
			lastSeq: 40,
			isFull: false,
			orders: longOrders,
		});
		const first = selectScreen(state, FIXED_NOW, small);
		expect(first.approval?.scrollMax).toBeGreaterThan(0);
		expect(first.approval?.lines[0]).toContain('o-42  fs/write_file#1  fs/write_file  held');
		expect(first.confirm).toMatch(/Read them whole first: j or PgDn shows the rest \(\d+ more lines\)/);
		const y = (at: BoardState) => {
			const binding = matchBinding('y', {}, at.mode);
			if (!binding) throw new Error('y means nothing here');
			return planBoardCommand(at, selectScreen(at, FIXED_NOW, small), binding, ALL_WIRED, NOW);
		};
		const refusal = y(state);
		expect(refusal.kind).toBe('refuse');
		if (refusal.kind === 'refuse')
			expect(refusal.message).toMatch(/^y: not yet: \d+ more lines of the calls to read first \(j or PgDn\)$/);
		// Scrolling to the end shows the rest; going back up does not undo having read it
		state = reduceBoard(state, {type: 'scroll-to', edge: 'last', max: first.approval?.scrollMax ?? 0});
		state = reduceBoard(state, {type: 'scroll-to', edge: 'first', max: first.approval?.scrollMax ?? 0});
		const whole = approvalLines(longOrders.records, [HELD_1, HELD_2], FIXED_NOW, small.width);
		expect(whole.some(line => line.includes('o-42  fs/write_file#2'))).toBe(true);
		expect(whole.every(line => line.length <= small.width - 2)).toBe(true);
		expect(y(state)).toEqual(
			calls([{type: 'back'}, info('approving 2 held effects…')], {kind: 'approve', refs: [HELD_1, HELD_2]}),
		);
	});

	it.each<[string, BoardAction, string]>([
		['a stop', {type: 'ask-stop', taskId: 't-progress'}, 'stop cancelled'],
		['an approval', {type: 'ask-approve', refs: [HELD_1]}, 'approval cancelled: nothing ran'],
	])('n and esc on %s say nothing ran', (_label, ask, said) => {
		expect(press(board(ask), 'n')).toEqual(acts(info(said), {type: 'back'}));
		expect(press(board(ask), 'esc')).toEqual(acts(info(said), {type: 'back'}));
	});

	it('esc in a reason prompt says the task was not sent back; in a filter it only closes', () => {
		const reason = board({type: 'start-prompt', kind: 'reason', taskId: 't-failed'});
		expect(press(reason, 'esc')).toEqual(acts(info('x: cancelled; t-failed was not sent back'), {type: 'back'}));
		expect(press(board({type: 'start-prompt', kind: 'filter'}), 'esc')).toEqual(acts({type: 'back'}));
	});

	it('enter commits a filter or a task reason (the reducer holds the send-back)', () => {
		const typed = (text: string, ...start: BoardAction[]) => board(...start, {type: 'prompt-input', text});
		expect(press(typed('csv', {type: 'start-prompt', kind: 'filter'}), 'enter')).toEqual(acts({type: 'prompt-commit'}));
		expect(press(typed('flaky', {type: 'start-prompt', kind: 'reason', taskId: 't-failed'}), 'enter')).toEqual(
			acts({type: 'prompt-commit'}),
		);
	});

	it('m on a running task asks for the message; enter sends it as typed; esc and an ended task send nothing', () => {
		const wired = {...ALL_WIRED, canMessage: true};
		expect(press(onRow('t-progress'), 'm', wired)).toEqual(acts({type: 'start-prompt', kind: 'message', taskId: 't-progress'}));
		expect(press(onRow('t-done'), 'm', wired)).toEqual(
			refused('m: t-done has ended (done); a message reaches only a running agent'),
		);
		expect(press(onRow('t-progress'), 'm')).toEqual(refused('m: sending a message is not available here'));
		const typed = (text: string) =>
			board({type: 'start-prompt', kind: 'message', taskId: 't-progress'}, {type: 'prompt-input', text});
		expect(press(typed('use v2\u001b[31m'), 'enter', wired)).toEqual(
			calls([{type: 'prompt-commit'}], {kind: 'message', taskId: 't-progress', text: 'use v2\u001b[31m'}),
		);
		expect(press(typed('  '), 'enter', wired)).toEqual(
			refused('m: nothing typed; nothing was sent to t-progress', [{type: 'prompt-commit'}]),
		);
		expect(press(typed('use v2'), 'esc', wired)).toEqual(
			acts(info('m: cancelled; nothing was sent to t-progress'), {type: 'back'}),
		);
		// Committed, the prompt closes and no send-back is pending
		expect(reduceBoard(typed('use v2'), {type: 'prompt-commit'}).pendingSendBack).toBeNull();
	});

	it("enter with an order's reason sends its held effects back, and refuses an empty reason", () => {
		const prompt = (text: string) => board({type: 'start-prompt', kind: 'reason', orderId: 'o-42'}, {type: 'prompt-input', text});
		expect(press(prompt('  wrong folder '), 'enter')).toEqual(
			calls([{type: 'prompt-commit'}], {kind: 'send-back-order', orderId: 'o-42', reason: 'wrong folder'}),
		);
		expect(press(prompt('   '), 'enter')).toEqual(
			refused("x: not sent back: a reason is required (o-42's worker reads it)", [{type: 'prompt-commit'}]),
		);
		expect(planSubmit(prompt('wrong folder'), {...ALL_WIRED, canSendBackOrder: false})).toEqual(
			refused('x: sending back is not available here', [{type: 'prompt-commit'}]),
		);
	});

	it('carries out a committed send-back once', () => {
		const committed = board(
			{type: 'start-prompt', kind: 'reason', taskId: 't-failed'},
			{type: 'prompt-input', text: 'the suite is flaky'},
			{type: 'prompt-commit'},
		);
		expect(planPendingSendBack(committed, ALL_WIRED)).toEqual(
			calls([{type: 'send-back-taken'}, info('sending t-failed back…')], {
				kind: 'send-back',
				taskId: 't-failed',
				reason: 'the suite is flaky',
			}),
		);
		expect(planPendingSendBack(committed, {...ALL_WIRED, canSendBack: false})).toEqual(
			refused('x: send back is not available here', [{type: 'send-back-taken'}]),
		);
		expect(planPendingSendBack(reduceBoard(committed, {type: 'send-back-taken'}), ALL_WIRED)).toBeNull();
	});
});

describe('keys that need no target', () => {
	it.each<[string, BoardMode, string, BoardPlan]>([
		['moves down the lanes', 'list', 'j', acts({type: 'move', delta: 1, order: screenOf(board()).order})],
		['scrolls a timeline', 'timeline', 'G', acts({type: 'scroll-to', edge: 'last', max: 0})],
		['switches panels', 'list', 'tab', acts({type: 'toggle-focus'})],
		['opens help', 'list', '?', acts({type: 'toggle-help'})],
		['opens the filter', 'list', '/', acts({type: 'start-prompt', kind: 'filter'})],
		['cycles the sort', 'list', 'o', acts({type: 'cycle-sort'})],
		['quits', 'list', 'q', {kind: 'act', actions: [], effect: {kind: 'exit', status: QUIT_STATUS}}],
		['interrupts', 'list', 'ctrl+c', {kind: 'act', actions: [], effect: {kind: 'exit', status: INTERRUPT_STATUS}}],
		['clears the filter in the lanes', 'list', 'esc', acts({type: 'back'})],
	])('%s', (_label, mode, key, expected) => {
		const state = mode === 'timeline' ? board({type: 'open-timeline', taskId: 't-progress', events: []}) : board();
		expect(press(state, key)).toEqual(expected);
	});

	it('moves the Needs you cursor through its entries and Held effects through its effects', () => {
		expect(press(inQueueAt(0), 'j')).toEqual(
			acts({type: 'move', delta: 1, order: ['t-failed', 't-review', 't-quiet', 'k-claim']}),
		);
		const effects = board({type: 'toggle-focus'}, {type: 'toggle-focus'});
		expect(press(effects, 'k')).toEqual(acts({type: 'move', delta: -1, order: [HELD_1.id, HELD_2.id]}));
	});

	it('refuses a key whose feature is not built, naming it', () => {
		const unbuilt = {...KEY_TABLE[0]!, notBuilt: 'not built yet (issue 99)'};
		expect(planBoardCommand(board(), screenOf(board()), unbuilt, ALL_WIRED, NOW)).toEqual(
			refused('j/↓: not built yet (issue 99)'),
		);
	});
});

describe('what a call came to, on the status line', () => {
	const stop: BoardCall = {kind: 'stop', taskId: 't-progress'};
	it.each<[string, CallAnswer, string, string]>([
		['a stop done', {...stop, outcome: {isStopped: true, message: 'stopped t-progress'}}, 'ok', 'stopped t-progress'],
		[
			'a stop asked of its host',
			{kind: 'stop', taskId: 'h2/t-remote', outcome: {isStopped: false, isPending: true, message: 'asked h2 to stop'}},
			'info',
			'asked h2 to stop',
		],
		['a stop refused', {...stop, outcome: {isStopped: false, message: 'already ended'}}, 'warn', 'already ended'],
		[
			'a send-back',
			{kind: 'send-back', taskId: 't-failed', reason: 'r', outcome: {isSentBack: true, message: 'sent back'}},
			'ok',
			'sent back',
		],
		[
			'an approval that failed',
			{kind: 'approve', refs: [HELD_1], outcome: {isSuccess: false, message: '1 failed'}},
			'error',
			'1 failed',
		],
		[
			"an order's send-back",
			{kind: 'send-back-order', orderId: 'o-42', reason: 'r', outcome: {message: 'sent o-42 back'}},
			'ok',
			'sent o-42 back',
		],
		[
			'an acknowledgement',
			{kind: 'acknowledge', taskId: 't-quiet', signalAt: 1, now: 2, outcome: undefined},
			'ok',
			'acknowledged t-quiet',
		],
		[
			'an acknowledgement with its own words',
			{kind: 'acknowledge', taskId: 't-quiet', signalAt: 1, now: 2, outcome: 'asked h2 to acknowledge'},
			'ok',
			'asked h2 to acknowledge',
		],
	])('%s', (_label, answer, tone, text) => {
		expect(callAnsweredNotice(answer)).toEqual({tone, text});
	});

	it.each<[BoardCall, string]>([
		[{kind: 'stop', taskId: 't-progress'}, 'stop t-progress failed: EPERM'],
		[{kind: 'send-back', taskId: 't-failed', reason: 'r'}, 'send back t-failed failed: EPERM'],
		[{kind: 'send-back-order', orderId: 'o-42', reason: 'r'}, 'x: EPERM'],
		[{kind: 'approve', refs: [HELD_1]}, 'a: EPERM'],
		[{kind: 'acknowledge', taskId: 't-quiet', signalAt: 1, now: 2}, 'k: acknowledging t-quiet failed: EPERM'],
	])('a %j that threw names it with the error message', (call, text) => {
		expect(callFailedNotice(call, new Error('EPERM'))).toEqual({tone: 'error', text});
		expect(callFailedNotice(call, 'EPERM')).toEqual({tone: 'error', text});
	});

	it('says a slow call is under way, and nothing for one that answers at once', () => {
		expect(callStartedNotice({kind: 'approve', refs: [HELD_1]})).toEqual({tone: 'info', text: 'approving 1 held effect…'});
		expect(callStartedNotice({kind: 'acknowledge', taskId: 't', signalAt: 1, now: 2})).toBeNull();
	});
});

describe('t: to the agent tmux pane (docs/tmux.md)', () => {
	const pane = {socket: '/tmp/tmux-1000/default', serverPid: 10, session: '$0', pane: '%3'};
	function withPane(): BoardState {
		const state = board();
		const task = state.tasks.get('t-progress');
		if (!task) throw new Error('the fixture has no t-progress');
		const read: BoardAction = {
			type: 'ledger-read',
			tasks: [{...task, tmux: pane}],
			queue: state.queue,
			lastSeq: 32,
			isFull: false,
		};
		return [read, {type: 'select', taskId: 't-progress', index: 0} as BoardAction].reduce(reduceBoard, state);
	}

	it('calls the jump for a task whose agent reported a pane', () => {
		expect(press(withPane(), 't', {...ALL_WIRED, canJump: true})).toEqual({
			kind: 'act',
			actions: [],
			effect: {kind: 'call', call: {kind: 'jump', taskId: 't-progress'}},
		});
	});

	it('refuses at once, in one line, a task not in tmux, and says where to jump from on a board without it', () => {
		expect(press(onRow('t-progress'), 't', {...ALL_WIRED, canJump: true})).toEqual(
			refused('t: t-progress does not run in tmux: its hooks and wrapper saw no TMUX'),
		);
		expect(press(withPane(), 't')).toEqual(
			refused("t: jump from the task's own host (`controlroom jump t-progress`): a fleet board's panes may be elsewhere"),
		);
	});

	it("shows the jump's answer in the status line", () => {
		expect(
			callAnsweredNotice({kind: 'jump', taskId: 't-1', outcome: {isJumped: true, message: 'jumped to t-1: pane %3 in s:1'}}),
		).toEqual({tone: 'ok', text: 't: jumped to t-1: pane %3 in s:1'});
		expect(
			callAnsweredNotice({kind: 'jump', taskId: 't-1', outcome: {isJumped: false, message: "t-1's pane %3 is gone"}}),
		).toEqual({
			tone: 'warn',
			text: "t: t-1's pane %3 is gone",
		});
	});
});
