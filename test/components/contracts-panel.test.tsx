import {renderToString} from 'ink';
import {join} from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {BoardView} from '../../components/BoardView.tsx';
import {selectScreen} from '../../src/core/board/screen.ts';
import {initialBoardState, reduceBoard} from '../../src/core/board/state.ts';
import {newEvent, type NewEvent} from '../../src/core/events.ts';
import {createBoardFeed} from '../../src/ledger/board-feed.ts';
import {openLedger, type Ledger} from '../../src/ledger/open-ledger.ts';
import {boardFixtureEvents} from '../helpers/board-fixture.ts';
import {scratchDir} from '../helpers/cli.ts';

// The board's Contracts panel (docs/serve.md, "On the board and in the snapshot"): stored
// contracts waiting, taken and handed in, and who wrote each, read through the board's own feed
// from a ledger; what a writer put in a title reaches the terminal inert.

const MIN = 60_000;
const writer = (client: string, owner: string) => ({client, owner, via: 'serve', grant: 'g-1', host: null});

/** One stored contract's events: drafted by its writer, then what happened to it. */
function contractEvents(id: string, title: string, by: ReturnType<typeof writer>, at: number, then: NewEvent[]): NewEvent[] {
	return [
		newEvent('contract.drafted', {contractId: id, kind: 'task', title, writer: by}, {taskId: id, at, source: 'serve'}),
		...then,
	];
}

const ledgers: Ledger[] = [];
afterEach(() => {
	for (const ledger of ledgers.splice(0)) ledger.close();
});

function boardFrame(events: NewEvent[], now: number, size: {width: number; height: number}): string {
	const ledger = openLedger(join(scratchDir('cr-contracts-panel-'), 'ledger.db'));
	ledgers.push(ledger);
	ledger.writer.append([...boardFixtureEvents(now), ...events]);
	const batch = createBoardFeed(ledger).load(now);
	const state = reduceBoard(initialBoardState(), {type: 'ledger-read', ...batch});
	return renderToString(<BoardView screen={selectScreen(state, now, size)} />, {columns: size.width});
}

describe('the Contracts panel', () => {
	it('lists a hand-in, a draft, a ready one and a taken one with who wrote each, and leaves an accepted one of last week out', () => {
		const now = Date.now();
		const at = (minutesAgo: number) => now - minutesAgo * MIN;
		const events = [
			...contractEvents(
				'ct-aaaaaaaaaaa1',
				'Keep the status filter in the CSV export',
				writer('Chat Assistant', 'ana'),
				at(30),
				[],
			),
			...contractEvents('ct-aaaaaaaaaaa2', 'Paginate the audit log', writer('Claude', 'lee'), at(25), [
				newEvent(
					'contract.ready',
					{contract: 'ct-aaaaaaaaaaa2', contractKey: 'ct-aaaaaaaaaaa2', by: 'lee', acceptor: null},
					{taskId: 'contract-ct-aaaaaaaaaaa2', at: at(20), source: 'cli'},
				),
			]),
			...contractEvents('ct-aaaaaaaaaaa3', 'Retry the webhook on 503', writer('nightly', 'ops'), at(40), [
				newEvent(
					'contract.readied',
					{contractId: 'ct-aaaaaaaaaaa3', by: 'policy', how: 'policy'},
					{taskId: 'ct-aaaaaaaaaaa3', at: at(40), source: 'serve'},
				),
				newEvent(
					'claim.taken',
					{contractKey: 'ct-aaaaaaaaaaa3', holder: 'box-2/pickup'},
					{taskId: 'claim-3', at: at(12), source: 'cli'},
				),
			]),
			...contractEvents('ct-aaaaaaaaaaa4', 'Fix the date parser', writer('Chat Assistant', 'ana'), at(90), [
				newEvent(
					'contract.ready',
					{contract: 'ct-aaaaaaaaaaa4', contractKey: 'ct-aaaaaaaaaaa4', by: 'ana', acceptor: null},
					{taskId: 'contract-ct-aaaaaaaaaaa4', at: at(85), source: 'cli'},
				),
				newEvent(
					'claim.taken',
					{contractKey: 'ct-aaaaaaaaaaa4', holder: 'box-1/pickup'},
					{taskId: 'claim-4', at: at(80), source: 'cli'},
				),
				newEvent('claim.handed_in', {acceptor: 'lee'}, {taskId: 'claim-4', at: at(5), source: 'cli'}),
			]),
			...contractEvents('ct-aaaaaaaaaaa5', 'An old one', writer('Chat Assistant', 'ana'), at(7 * 24 * 60), [
				newEvent(
					'contract.ready',
					{contract: 'ct-aaaaaaaaaaa5', contractKey: 'ct-aaaaaaaaaaa5', by: 'ana', acceptor: null},
					{taskId: 'contract-ct-aaaaaaaaaaa5', at: at(7 * 24 * 60), source: 'cli'},
				),
				newEvent(
					'claim.taken',
					{contractKey: 'ct-aaaaaaaaaaa5', holder: 'box-1/pickup'},
					{taskId: 'claim-5', at: at(7 * 24 * 60), source: 'cli'},
				),
				newEvent('claim.handed_in', {acceptor: 'lee'}, {taskId: 'claim-5', at: at(7 * 24 * 60), source: 'cli'}),
				newEvent('work.accepted', {by: 'lee'}, {taskId: 'claim-5', at: at(7 * 24 * 60), source: 'cli'}),
			]),
		];
		const frame = boardFrame(events, now, {width: 160, height: 45});
		const lines = frame.split('\n');
		const title = lines.findIndex(line => line.startsWith('CONTRACTS (4)'));
		expect(title, frame).toBeGreaterThan(0);
		expect(lines.slice(title + 1, title + 5).map(line => line.trimEnd())).toEqual([
			'handed in   ct-aaaaaaaaaaa4 "Fix the date parser" from Chat Assistant for ana: hand-in waits for lee',
			'draft       ct-aaaaaaaaaaa1 "Keep the status filter in the CSV export" from Chat Assistant for ana: waits for a person\'s contract ready',
			'ready       ct-aaaaaaaaaaa2 "Paginate the audit log" from Claude for lee: waits for a taker 20m',
			'taken       ct-aaaaaaaaaaa3 "Retry the webhook on 503" from nightly for ops: held by box-2/pickup (claim-3) 12m',
		]);
		expect(frame).not.toContain('An old one');
	});

	it('shows none while no contract is stored, and fits in a quarter of an 80x24 board with how many more', () => {
		const now = Date.now();
		expect(boardFrame([], now, {width: 80, height: 24})).not.toContain('CONTRACTS');
		const many = Array.from({length: 9}, (_, index) =>
			contractEvents(`ct-bbbbbbbbbbb${index}`, `Task ${index}`, writer('Chat Assistant', 'ana'), now - (20 - index) * MIN, []),
		).flat();
		const frame = boardFrame(many, now, {width: 80, height: 24});
		const lines = frame.split('\n');
		expect(lines).toHaveLength(24);
		const title = lines.findIndex(line => line.startsWith('CONTRACTS (9)'));
		expect(lines[title]).toContain('more: snapshot --json lists all');
		const drafts = lines.filter(line => line.startsWith('draft '));
		expect(drafts.length).toBeLessThanOrEqual(5);
		for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
		// The title and writer are cut first: what each waits for stays on screen.
		expect(drafts[0]?.trimEnd()).toBe('draft       ct-bbbbbbbbbbb0 "Task 0" from C… waits for a person\'s contract ready');
	});

	it('draws what a writer put in a title and its name inert', () => {
		const now = Date.now();
		const hostile = 'Fix \u001b]8;;https://evil.example/\u001b\\this\u001b]8;;\u001b\\ \u0007\u001b[2J now';
		const frame = boardFrame(
			contractEvents('ct-cccccccccccc', hostile, writer('Evil\u001b[31m', 'ana\u009b2J'), now - MIN, []),
			now,
			{width: 160, height: 45},
		);
		expect(frame).toContain('CONTRACTS (1)');
		for (const raw of ['\u001b', '\u0007', '\u0000', '\u009b']) expect(frame.includes(raw), JSON.stringify(raw)).toBe(false);
	});
});
