import {renderToString} from 'ink';
import {describe, expect, it} from 'vitest';
import {BoardView} from '../../components/BoardView.tsx';
import {foldOrders, type OrderEvent} from '../../src/core/effects/fold.ts';
import {selectScreen} from '../../src/core/board/screen.ts';
import {initialBoardState, reduceBoard} from '../../src/core/board/state.ts';
import {EventType, newEvent, type EventDataOf, type LedgerEvent} from '../../src/core/events.ts';
import {FIXED_NOW} from '../helpers/board-fixture.ts';

const MIN = 60_000;
const CONTENT = '## 0.2.0\n\n- The board measures wide characters.\n- Column headings over the lanes.\n- Shell completion.\n';
let at = FIXED_NOW - 5 * MIN;
function orderEvent<T extends OrderEvent['type']>(type: T, data: EventDataOf<T>): OrderEvent {
	at += 1000;
	return {...newEvent(type, data, {taskId: 'o-changelog', at, source: 'gateway'}), seq: at} as OrderEvent;
}
const events = [
	orderEvent(EventType.orderOpened, {worker: 'demo-writer', budgetCalls: 10, expiresMs: 3_600_000}),
	orderEvent(EventType.effectHeld, {
		id: 'fs/write_file#2',
		seq: 2,
		upstream: 'fs',
		tool: 'write_file',
		args: {path: 'CHANGELOG.md', content: CONTENT},
		expiresAt: FIXED_NOW + 60 * MIN,
	}),
];

function boardWithHeldWrite() {
	return reduceBoard(initialBoardState(), {
		type: 'ledger-read',
		tasks: [],
		queue: {lanes: [], total: 0},
		lastSeq: 2,
		isFull: true,
		orders: {records: [...foldOrders(events).values()], deadApprovers: []},
	});
}

describe('a held call’s arguments', () => {
	it('are readable in the Held effects panel at 160 columns, on a line of their own', () => {
		const frame = renderToString(<BoardView screen={selectScreen(boardWithHeldWrite(), FIXED_NOW, {width: 160, height: 45})} />, {
			columns: 160,
		});
		const argsLine = frame.split('\n').find(line => line.includes('path="CHANGELOG.md"')) ?? '';
		expect(argsLine, frame).toContain('path="CHANGELOG.md" content="## 0.2.0\\n\\n- The board');
	});

	it('are whole in the order’s timeline, over as many lines as they need, at 160 and 80 columns', () => {
		for (const width of [160, 80]) {
			const state = reduceBoard(boardWithHeldWrite(), {
				type: 'open-timeline',
				taskId: 'o-changelog',
				events: events as LedgerEvent[],
			});
			const frame = renderToString(<BoardView screen={selectScreen(state, FIXED_NOW, {width, height: 30})} />, {columns: width});
			const joined = frame
				.split('\n')
				.map(line => line.trim())
				.join(' ');
			expect(frame).toContain('held fs/write_file#2 for approval: fs/write_file');
			// Every word of the content is on screen, none cut with …
			for (const word of ['Column', 'headings', 'Shell', 'completion.\\n"'])
				expect(joined, `${word} at ${width}`).toContain(word);
			expect(frame).not.toMatch(/completion…/);
		}
	});
});
