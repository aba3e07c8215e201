import {readFileSync} from 'node:fs';
import {describe, expect, it} from 'vitest';
import {layoutIds, uniquePrefixLength} from '../../src/core/board/ids.ts';
import {splitKeys} from '../../src/core/board/keymap.ts';
import {plainLine, windowLog} from '../../src/core/board/log-view.ts';
import {confirmStopText, selectScreen} from '../../src/core/board/screen.ts';
import {selectLanes, selectQueue, stopBlockedReason, toRowView, windowLines} from '../../src/core/board/selectors.ts';
import type {SortOrder} from '../../src/core/board/sort.ts';
import {hasNewQueueEntry, initialBoardState, reduceBoard, type BoardAction, type BoardState} from '../../src/core/board/state.ts';
import {EventType, newEvent} from '../../src/core/events.ts';
import {computeHumanQueue, type QueueSignal} from '../../src/core/human-queue.ts';
import {ledgerMessages, messageLines, transcriptMessages} from '../../src/core/transcript-messages.ts';
import {boardFixtureEvents, FIXED_NOW, foldTasks} from '../helpers/board-fixture.ts';
import {fixtureBoardState} from '../helpers/board-state.ts';

const tasks = foldTasks(boardFixtureEvents());
const SIZE = {width: 100, height: 30};

function apply(state: BoardState, ...actions: BoardAction[]): BoardState {
	return actions.reduce(reduceBoard, state);
}

function queueOf(signals: readonly QueueSignal[]) {
	return computeHumanQueue({signals, acknowledgedAt: new Map(), successes: [], taskKeys: new Map()});
}

describe('keys that arrive together', () => {
	it('reads two Backspaces in one burst as two Backspaces, not as text', () => {
		expect(splitKeys('\u007F\u007F', {})).toEqual([
			{input: '', key: {backspace: true}},
			{input: '', key: {backspace: true}},
		]);
	});

	it('reads text, Enter and Tab in a burst key by key', () => {
		expect(splitKeys('ab\r\t', {}).map(press => press.input || Object.keys(press.key)[0])).toEqual(['a', 'b', 'return', 'tab']);
	});

	it('reads Esc and a key read together (Alt+key to the parser) as Esc, then the key', () => {
		expect(splitKeys('g', {meta: true})).toEqual([
			{input: '', key: {escape: true}},
			{input: 'g', key: {meta: false}},
		]);
	});

	it('leaves a single key alone', () => {
		expect(splitKeys('j', {})).toEqual([{input: 'j', key: {}}]);
		expect(splitKeys('', {escape: true, meta: true})).toEqual([{input: '', key: {escape: true, meta: true}}]);
	});
});

describe('the filter, as in k9s', () => {
	it('applies while typing, erases one character per Backspace, and Enter keeps it', () => {
		let state = apply(
			fixtureBoardState(),
			{type: 'start-prompt', kind: 'filter'},
			{type: 'prompt-edit', edit: {kind: 'type', text: 'wrapperzz'}},
		);
		expect(state.filter).toBe('wrapperzz');
		expect(selectScreen(state, FIXED_NOW, SIZE).order).toEqual([]);
		state = apply(state, {type: 'prompt-edit', edit: {kind: 'erase'}}, {type: 'prompt-edit', edit: {kind: 'erase'}});
		expect(state.prompt?.text).toBe('wrapper');
		expect(selectScreen(state, FIXED_NOW, SIZE).order.length).toBeGreaterThan(0);
		state = apply(state, {type: 'prompt-commit'});
		expect(state.mode).toBe('list');
		expect(state.filter).toBe('wrapper');
		expect(selectScreen(state, FIXED_NOW, SIZE).filter).toBe('wrapper');
	});

	it('clears with Esc, while typing or after', () => {
		const typing = apply(
			fixtureBoardState(),
			{type: 'start-prompt', kind: 'filter'},
			{type: 'prompt-edit', edit: {kind: 'type', text: 'csv'}},
		);
		expect(apply(typing, {type: 'back'}).filter).toBe('');
		const kept = apply(typing, {type: 'prompt-commit'});
		expect(kept.filter).toBe('csv');
		const cleared = apply(kept, {type: 'back'});
		expect(cleared.filter).toBe('');
		expect(cleared.mode).toBe('list');
	});

	it('shows the prompt, not the applied filter, on the status line while typing; the bar says enter keeps and esc clears', () => {
		const screen = selectScreen(
			apply(
				fixtureBoardState(),
				{type: 'start-prompt', kind: 'filter'},
				{type: 'prompt-edit', edit: {kind: 'type', text: 'csv'}},
			),
			FIXED_NOW,
			SIZE,
		);
		expect(screen.prompt).toEqual({label: '/', text: 'csv'});
		expect(screen.filter).toBeNull();
		expect(screen.bar.map(item => `${item.keys} ${item.label}`)).toEqual(['enter keep', 'esc clear']);
	});
});

describe('sorting', () => {
	const orderIn = (sort: SortOrder) =>
		selectLanes(tasks.values(), FIXED_NOW, {filter: '', sort}).order.filter(id =>
			['t-progress', 't-quiet', 't-queued'].includes(id),
		);

	it('cycles newest, longest idle, most tokens, title, and the header says which', () => {
		let state = fixtureBoardState();
		const seen = [];
		for (let index = 0; index < 5; index += 1) {
			seen.push(selectScreen(state, FIXED_NOW, SIZE).header.sort);
			state = apply(state, {type: 'cycle-sort'});
		}
		expect(seen).toEqual(['sort: newest', 'sort: longest idle', 'sort: most tokens', 'sort: title', 'sort: newest']);
	});

	it('orders each lane by the chosen key; unknown tokens last', () => {
		expect(orderIn('newest')).toEqual(['t-queued', 't-quiet', 't-progress']);
		// Both last seen a minute ago: the tie goes by id.
		expect(orderIn('idle')).toEqual(['t-progress', 't-quiet', 't-queued']);
		expect(orderIn('tokens')[0]).toBe('t-progress');
		expect(orderIn('title')).toEqual(['t-progress', 't-queued', 't-quiet']);
	});
});

describe('the cursor', () => {
	it('pages, and jumps to the first and last row', () => {
		const state = fixtureBoardState();
		const {order} = selectScreen(state, FIXED_NOW, SIZE);
		expect(apply(state, {type: 'move-to', edge: 'last', order}).selectedId).toBe(order.at(-1));
		expect(apply(state, {type: 'move-to', edge: 'last', order}, {type: 'move-to', edge: 'first', order}).selectedId).toBe(
			order[0],
		);
		expect(apply(state, {type: 'move', delta: 4, order}).selectedId).toBe(order[4]);
		expect(apply(state, {type: 'move', delta: 100, order}).selectedId).toBe(order.at(-1));
	});

	it('stays on its task when the list changes around it, and at the same place when its task leaves', () => {
		const state = apply(fixtureBoardState(), {type: 'select', taskId: 't-progress', index: 2});
		const stopped = {...tasks.get('t-progress')!, status: 'stopped' as const, endedAt: FIXED_NOW, signal: 'SIGTERM'};
		const after = apply(state, {type: 'ledger-read', tasks: [stopped], queue: state.queue, lastSeq: 40, isFull: false});
		const screen = selectScreen(after, FIXED_NOW, SIZE);
		expect(screen.selectedId).toBe('t-progress');
		expect(screen.selected?.lane).toBe('ended');
		const filtered = selectScreen(
			apply(state, {type: 'start-prompt', kind: 'filter'}, {type: 'prompt-edit', edit: {kind: 'type', text: 'e'}}),
			FIXED_NOW,
			SIZE,
		);
		expect(filtered.selectedIndex).toBeLessThanOrEqual(2);
	});

	it('scrolls a log from its end and follows new lines at the end', () => {
		const lines = Array.from({length: 50}, (_, index) => `line ${index}`);
		expect(windowLog(lines, 0, 10)).toMatchObject({start: 40, isFollowing: true});
		expect(windowLog(lines, 5, 10)).toMatchObject({start: 35, isFollowing: false});
		expect(windowLog(lines, 500, 10)).toMatchObject({start: 0, isFollowing: false});
		const open = apply(fixtureBoardState(), {type: 'open-log', taskId: 't-progress'});
		const up = apply(open, {type: 'scroll', delta: -3, max: 40});
		expect(up.log?.fromEnd).toBe(3);
		expect(apply(up, {type: 'scroll-to', edge: 'last', max: 40}).log?.fromEnd).toBe(0);
		expect(apply(up, {type: 'scroll-to', edge: 'first', max: 40}).log?.fromEnd).toBe(40);
		expect(apply(up, {type: 'back'}).mode).toBe('list');
	});
});

describe('a clean screen', () => {
	it('writes ids whole where they fit, else cut to a prefix no other id shares', () => {
		const claims = ['claim-20b26958abcd-1', 'claim-20b26958abcd-2', 'claim-20b26958abcd-3', 'w-1'];
		const wide = layoutIds(claims, claims, 40);
		expect([...wide.shown.values()]).toEqual(claims);
		expect(wide.width).toBe(20);
		const ids = ['c-0123456789ab.000001', 'c-0123456789ab.000002', 'c-99'];
		expect(uniquePrefixLength('c-0123456789ab.000001', ids)).toBe(21);
		const narrow = layoutIds(['c-0123456789abcdef-long-session'], ['c-0123456789abcdef-long-session', 'c-01234'], 12);
		expect(narrow.shown.get('c-0123456789abcdef-long-session')).toBe('c-012345678…');
		const sharing = layoutIds(['a-123456789xyz-1'], ['a-123456789xyz-1', 'a-123456789xyz-2'], 8);
		expect(sharing.shown.get('a-123456789xyz-1')).toBe('a-123456789xyz-1');
	});

	it('fits the stop question at 80 columns, however long the title', () => {
		const task = {
			id: 'w-0123456789',
			title: 'a very long title that goes on and on about what the agent is doing today',
			pid: 123456,
		};
		for (const width of [60, 80, 120]) {
			const text = confirmStopText(task, width);
			expect([...text].length).toBeLessThan(width);
			expect(text).toContain('(pid 123456)? y');
			expect(text).toContain('w-0123456789');
		}
		expect(confirmStopText(task, 80)).toContain('“a very long');
	});

	it('says what a window of two lines leaves out on both sides in one line (40×12)', () => {
		const {lines} = selectLanes(tasks.values(), FIXED_NOW, {filter: ''});
		const window = windowLines(lines, 't-lost', 2);
		expect(window.lines.map(line => (line.kind === 'row' ? line.row.id : line.title))).toEqual(['t-lost']);
		expect(window.above).toBeNull();
		expect(window.below).toMatch(/^↕ \d+ more: RUNNING \d+ · STALLED 1 · UNTRACKED 1 · RECENTLY ENDED 3$/);
	});

	it('never draws a ↑ or ↓ line without a row in the window, at any height', () => {
		const {lines} = selectLanes(tasks.values(), FIXED_NOW, {filter: ''});
		for (let height = 2; height < lines.length; height += 1) {
			for (const id of [null, 't-queued', 't-lost', 't-done']) {
				const window = windowLines(lines, id, height);
				expect(window.lines.some(line => line.kind === 'row')).toBe(true);
				const last = window.lines.at(-1);
				if (window.below) expect(last?.kind === 'lane' && last.count > 0).toBe(false);
				if (window.below) expect(window.below).toMatch(/^[↓↕] (\d+ more: |.*: none$)/);
			}
		}
	});

	it('refuses at once to stop an ended or lost task, saying why', () => {
		expect(stopBlockedReason({status: 'lost', pid: 5, endReason: 'pid 5 gone with no exit recorded'})).toBe(
			'it is lost (pid 5 gone with no exit recorded): nothing is left to stop',
		);
		expect(stopBlockedReason({status: 'failed', pid: 5})).toBe('it has already ended (failed)');
	});

	it('writes a passed-back claim as passed back, and a handed-in one as handed in', () => {
		const events = [
			newEvent(EventType.registered, {title: 'fix the csv'}, {taskId: 'claim-1', at: FIXED_NOW - 1000, source: 'cli'}),
			newEvent(EventType.claimTaken, {holder: 'ana'}, {taskId: 'claim-1', at: FIXED_NOW - 900, source: 'cli'}),
			newEvent(EventType.claimPassedBack, {reason: 'blocked on review'}, {taskId: 'claim-1', at: FIXED_NOW - 500, source: 'cli'}),
			newEvent(EventType.registered, {title: 'fix the tsv'}, {taskId: 'claim-2', at: FIXED_NOW - 1000, source: 'cli'}),
			newEvent(EventType.claimHandedIn, {acceptor: 'bo'}, {taskId: 'claim-2', at: FIXED_NOW - 500, source: 'cli'}),
		];
		const claims = foldTasks(events);
		expect(toRowView(claims.get('claim-1')!, FIXED_NOW).status).toBe('passed back');
		expect(toRowView(claims.get('claim-2')!, FIXED_NOW).status).toBe('handed in');
	});
});

describe('Needs you', () => {
	it('lists the oldest-waiting first, each with how long it has waited', () => {
		const queue = queueOf([
			{taskId: 't-quiet', lane: 'needs', reason: 'newer', at: FIXED_NOW - 2 * 60_000, seq: 2},
			{taskId: 't-lost', lane: 'needs', reason: 'older', at: FIXED_NOW - 12 * 60_000, seq: 1},
		]);
		const view = selectQueue(queue, tasks, FIXED_NOW);
		expect(view.order.map(item => item.reason)).toEqual(['older', 'newer']);
		expect(view.order[0]?.text).toBe('t-lost  waiting 12m  older — refactor the parser');
	});

	it('rings once for each new entry while the board is open, never for what was there when it opened', () => {
		const first = queueOf([{taskId: 't-quiet', lane: 'needs', reason: 'a', at: FIXED_NOW - 5000, seq: 1}]);
		const opened = reduceBoard(initialBoardState(), {type: 'ledger-read', tasks: [], queue: first, lastSeq: 1, isFull: true});
		expect(opened.bells).toBe(0);
		const same = reduceBoard(opened, {type: 'ledger-read', tasks: [], queue: first, lastSeq: 2, isFull: false});
		expect(same.bells).toBe(0);
		const second = queueOf([
			{taskId: 't-quiet', lane: 'needs', reason: 'a', at: FIXED_NOW - 5000, seq: 1},
			{taskId: 't-lost', lane: 'failed', reason: 'exit 1', at: FIXED_NOW, seq: 3},
		]);
		expect(reduceBoard(same, {type: 'ledger-read', tasks: [], queue: second, lastSeq: 3, isFull: false}).bells).toBe(1);
		expect(hasNewQueueEntry(second, first)).toBe(false);
	});
});

describe('the log view', () => {
	it('turns program output into plain lines: colours and overwritten progress gone', () => {
		expect(plainLine('\u001B[32mok\u001B[0m done')).toBe('ok done');
		expect(plainLine('10%\r50%\r100%')).toBe('100%');
		expect(plainLine('a\tb\u0007')).toBe('a  b');
	});

	it("reads a Claude Code transcript's messages and tool calls, skipping thinking", () => {
		const lines = readFileSync(new URL('../fixtures/transcripts/session.jsonl', import.meta.url), 'utf8').split('\n');
		const text = messageLines(transcriptMessages(lines, 'claude'));
		expect(text[0]).toBe('you: say hi');
		expect(text).toContain('claude → Bash echo hi');
		expect(text).toContain('  ⎿ hi');
		expect(text).toContain('claude: hi');
		expect(text.join('\n')).not.toContain('I will run echo hi');
	});

	it('reads a Codex session file and the messages its hooks recorded', () => {
		const codex = [
			JSON.stringify({
				type: 'response_item',
				payload: {type: 'message', role: 'user', content: [{type: 'input_text', text: 'say hi'}]},
			}),
			JSON.stringify({
				type: 'response_item',
				payload: {type: 'function_call', name: 'shell', arguments: '{"command":["echo","hi"]}'},
			}),
			JSON.stringify({type: 'response_item', payload: {type: 'function_call_output', output: 'hi\n'}}),
			JSON.stringify({
				type: 'response_item',
				payload: {type: 'message', role: 'assistant', content: [{type: 'output_text', text: 'hi'}]},
			}),
			'{"cut in the mid',
		];
		expect(messageLines(transcriptMessages(codex, 'codex'))).toEqual([
			'you: say hi',
			'codex → shell {"command":["echo","hi"]}',
			'  ⎿ hi',
			'codex: hi',
		]);
		const recorded = ledgerMessages(
			[
				{event: 'UserPromptSubmit', payload: {prompt: 'fix it'}},
				{event: 'PreToolUse', payload: {tool_name: 'Bash', tool_input: {command: 'npm test'}}},
				{event: 'Stop', payload: {last_assistant_message: 'fixed\nand tested'}},
			],
			'claude',
		);
		expect(messageLines(recorded)).toEqual(['you: fix it', 'claude → Bash npm test', 'claude: fixed', '        and tested']);
	});
});
