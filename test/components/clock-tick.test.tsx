import {render} from 'ink-testing-library';
import {join} from 'node:path';
import {afterEach, expect, it} from 'vitest';
import {App} from '../../components/App.tsx';
import {ClockProvider} from '../../components/ClockProvider.tsx';
import {createBoardFeed} from '../../src/ledger/board-feed.ts';
import {openLedger, type Ledger} from '../../src/ledger/open-ledger.ts';
import {boardFixtureEvents, FIXED_NOW} from '../helpers/board-fixture.ts';
import {scratchDir} from '../helpers/cli.ts';
import {waitForFrame} from '../helpers/keys.ts';

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

it('moves relative times on with the clock alone, with no new ledger event', async () => {
	// Given a board whose clock we set, on a ledger that does not change
	const ledger: Ledger = openLedger(join(scratchDir('cr-clock-'), 'ledger.db'));
	ledger.writer.append(boardFixtureEvents(FIXED_NOW));
	let now = FIXED_NOW;
	const board = render(
		<ClockProvider intervalMs={20} time={() => now}>
			<App
				adapters={{
					feed: createBoardFeed(ledger),
					ledgerFiles: [ledger.path],
					spoolDir: null,
					options: {},
					stopUnavailable: 'not in this test',
				}}
			/>
		</ClockProvider>,
	);
	cleanup = () => {
		board.unmount();
		ledger.close();
	};
	await waitForFrame(board, ' 1m ago');
	expect(board.lastFrame()).not.toContain(' 3h ago');
	// When three hours pass on the clock
	now = FIXED_NOW + 3 * 3_600_000;
	// Then the next tick redraws the labels
	await waitForFrame(board, ' 3h ago');
});
