import {render} from 'ink';
import {createElement} from 'react';
import {App, type BoardAdapters} from '../../../components/App.tsx';
import {ClockProvider} from '../../../components/ClockProvider.tsx';
import {createBoardFeed} from '../../ledger/board-feed.ts';
import {spoolDir} from '../../ledger/paths.ts';
import {foldSpool} from '../../ledger/spool.ts';
import {parseDuration} from '../../core/duration.ts';
import {parseCommandArgs, positiveInt} from '../args.ts';
import {openCommandLedger, out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';

export const usage = `controlroom [board] [--ledger PATH] [--stall SECONDS] [--since DURATION]
  Opens the board: lanes for running, stalled, lost, untracked and recently ended tasks, and the
  Needs you, Reviews and Held effects panels. Press ? on the board for its keys.
  --stall SECONDS   silence after which a running task is stalled (default 600; a task's own wins)
  --since DURATION  how long ended tasks stay under "recently ended" (default 24h)`;

const ENTER_ALT_SCREEN = '\u001B[?1049h\u001B[H';
const LEAVE_ALT_SCREEN = '\u001B[?1049l';

/** The ledger's own files: the database and its write-ahead log. */
function ledgerFiles(file: string): string[] {
	return [file, `${file}-wal`];
}

/** `controlroom board`: the Ink control room on a ledger, until `q`. */
export async function run(argv: readonly string[]): Promise<number> {
	const {values} = parseCommandArgs('board', argv, {stall: {type: 'string'}, since: {type: 'string'}}, false);
	if (values.help) return (out(usage), 0);
	const stallSeconds = positiveInt('stall', values.stall);
	const endedWindowMs = values.since === undefined ? undefined : parseDuration(values.since);
	if (endedWindowMs === null) throw new CliError(`--since: expected a duration like 90m, 24h or 7d, got '${values.since}'`, USAGE_EXIT);
	if (!process.stdin.isTTY) throw new CliError('board: needs a terminal (use `controlroom snapshot` in scripts and CI)', USAGE_EXIT);
	const ledger = openCommandLedger(values.ledger);
	try {
		const spool = spoolDir(ledger.path);
		const adapters: BoardAdapters = {
			feed: createBoardFeed(ledger, endedWindowMs === undefined ? {} : {endedWindowMs}),
			ledgerFiles: ledgerFiles(ledger.path),
			spoolDir: spool,
			onSpool: () => foldSpool(ledger, spool),
			options: {
				...(stallSeconds === undefined ? {} : {stallSeconds}),
				...(endedWindowMs === undefined ? {} : {endedWindowMs}),
			},
			stopUnavailable: 'stopping is not wired yet (needs the wrapper and `controlroom stop`)',
		};
		// The board takes the alternate screen, as k9s and less do, so quitting gives the shell back as it was.
		process.stdout.write(ENTER_ALT_SCREEN);
		const app = render(createElement(ClockProvider, {intervalMs: 1000, children: createElement(App, {adapters})}), {
			maxFps: 30,
			exitOnCtrlC: true,
			patchConsole: true,
		});
		try {
			await app.waitUntilExit();
		} finally {
			app.unmount();
			process.stdout.write(LEAVE_ALT_SCREEN);
		}
		return 0;
	} finally {
		ledger.close();
	}
}
