import {render} from 'ink-testing-library';
import {join} from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {App} from '../../components/App.tsx';
import {ClockProvider} from '../../components/ClockProvider.tsx';
import {EventType, newEvent} from '../../src/core/events.ts';
import {openLedger, type Ledger} from '../../src/ledger/open-ledger.ts';
import {momentAtSeq} from '../../src/ledger/reader-as-of.ts';
import {pastBoardAdapters} from '../../src/cli/board-at.ts';
import {scratchDir} from '../helpers/cli.ts';
import {waitForFrame, waitForKeys} from '../helpers/keys.ts';

const open: {ledger: Ledger; unmount: () => void}[] = [];
afterEach(() => {
	for (const item of open.splice(0)) {
		item.unmount();
		item.ledger.close();
	}
});

/** Until the clock has moved past `at`: the next write then arrives after it. */
function pastMillisecond(at: number): void {
	while (Date.now() <= at) {
		// The clock moves within a millisecond.
	}
}

describe('the board at a past moment, drawn', () => {
	it('names its moment, steps by event to now, and refuses a key that would act, writing nothing', async () => {
		const ledger = openLedger(join(scratchDir('cr-past-keys-'), 'ledger.db'));
		for (const id of ['w-1', 'w-2', 'w-3']) {
			ledger.writer.append([
				newEvent(EventType.registered, {title: `task ${id}`}, {taskId: id, at: Date.now(), source: 'wrapper'}),
			]);
			pastMillisecond(Date.now());
		}
		const adapters = pastBoardAdapters(ledger, momentAtSeq(ledger.reader, 1), {ledgerLabel: 'ledger.db'});
		// No integrity worker in a component test: the checks are the live board's, tested there.
		const {checkIntegrity: _integrity, checkChain: _chain, ...wired} = adapters;
		const board = render(
			<ClockProvider intervalMs={1000} time={adapters.past.now}>
				<App adapters={wired} />
			</ClockProvider>,
		);
		open.push({ledger, unmount: board.unmount});
		await waitForFrame(board, 'event 1 of 3');
		await waitForKeys(board);
		expect(board.lastFrame()).toContain('RUNNING (1)');
		board.stdin.write(']');
		await waitForFrame(board, 'event 2 of 3');
		expect(board.lastFrame()).toContain('RUNNING (2)');
		board.stdin.write('s');
		await waitForFrame(board, 's stops nothing');
		board.stdin.write(']');
		await waitForFrame(board, 'event 3 of 3');
		board.stdin.write(']');
		await waitForFrame(board, '◷ at now');
		expect(board.lastFrame()).toContain('RUNNING (3)');
		board.stdin.write('[');
		await waitForFrame(board, 'event 2 of 3');
		// Nothing it did was written.
		expect(ledger.reader.lastSeq()).toBe(3);
	});
});
