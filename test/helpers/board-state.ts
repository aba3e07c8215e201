import {computeHumanQueue} from '../../src/core/human-queue.ts';
import {selectScreen, type ScreenView} from '../../src/core/board/screen.ts';
import {initialBoardState, reduceBoard, type BoardAction, type BoardState} from '../../src/core/board/state.ts';
import {boardFixtureEvents, FIXED_NOW, foldTasks} from './board-fixture.ts';

/** The fixture tasks loaded into a board state, with a failed entry and a need in the queue. */
export function fixtureBoardState(...actions: BoardAction[]): BoardState {
	const tasks = foldTasks(boardFixtureEvents());
	const queue = computeHumanQueue({
		signals: [
			{taskId: 't-failed', lane: 'failed', reason: 'exit 1', at: FIXED_NOW - 20 * 60_000, seq: 23},
			{taskId: 't-quiet', lane: 'needs', reason: 'which branch should I target?', at: FIXED_NOW - 5 * 60_000, seq: 27},
		],
		acknowledgedAt: new Map(),
		successes: [],
		taskKeys: new Map(),
	});
	const loaded = reduceBoard(initialBoardState(), {
		type: 'ledger-read',
		tasks: [...tasks.values()],
		queue,
		lastSeq: 27,
		isFull: true,
	});
	return actions.reduce(reduceBoard, loaded);
}

/** The fixture screen at the fixed now. */
export function fixtureScreen(size = {width: 100, height: 30}, ...actions: BoardAction[]): ScreenView {
	return selectScreen(fixtureBoardState(...actions), FIXED_NOW, size);
}
