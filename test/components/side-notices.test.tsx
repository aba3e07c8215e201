import {render} from 'ink-testing-library';
import {join} from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {App, type BoardAdapters} from '../../components/App.tsx';
import {ClockProvider} from '../../components/ClockProvider.tsx';
import {createNoticeChannel} from '../../src/core/board/notice-channel.ts';
import {createBoardFeed} from '../../src/ledger/board-feed.ts';
import {openLedger, type Ledger} from '../../src/ledger/open-ledger.ts';
import {boardFixtureEvents} from '../helpers/board-fixture.ts';
import {scratchDir} from '../helpers/cli.ts';
import {waitForFrame, waitForKeys} from '../helpers/keys.ts';

// What runs beside the board (`board --otel-port`'s receiver, docs/board.md) speaks on its notice line.

const open: {ledger: Ledger; unmount: () => void}[] = [];
afterEach(() => {
	for (const item of open.splice(0)) {
		item.unmount();
		item.ledger.close();
	}
});

describe('notices from beside the board', () => {
	it('shows one posted before the first frame, then each later one, made terminal-safe; the keys still work', async () => {
		const ledger = openLedger(join(scratchDir('cr-board-notices-'), 'ledger.db'));
		ledger.writer.append(boardFixtureEvents(Date.now()));
		const notices = createNoticeChannel();
		notices.post({tone: 'info', text: 'otel receive: listening on http://127.0.0.1:4318'});
		const adapters: BoardAdapters = {
			feed: createBoardFeed(ledger),
			ledgerFiles: [ledger.path, `${ledger.path}-wal`],
			spoolDir: null,
			options: {},
			notices,
		};
		const board = render(
			<ClockProvider intervalMs={1000}>
				<App adapters={adapters} />
			</ClockProvider>,
		);
		open.push({ledger, unmount: board.unmount});
		await waitForFrame(board, 'otel receive: listening on http://127.0.0.1:4318');
		await waitForKeys(board);
		notices.post({tone: 'error', text: 'otel receive: the ledger could not record the request: \u001B[2Jdisk I/O error'});
		await waitForFrame(board, 'otel receive: the ledger could not record the request');
		expect(board.lastFrame()).not.toContain('\u001B[2J');
		expect(board.lastFrame()).toContain('disk I/O error');
		board.stdin.write('j');
		await waitForFrame(board, '› t-quiet');
	});
});
