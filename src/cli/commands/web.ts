import {readFileSync} from 'node:fs';
import {createServer} from 'node:http';
import {join} from 'node:path';
import {BoardCommand, KEY_TABLE, type KeyBinding} from '../../core/board/keymap.ts';
import {terminalSafe} from '../../core/terminal-text.ts';
import {parseCommandArgs} from '../args.ts';
import {boardLook} from '../board-look.ts';
import {openCommandLedger, out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import type {CommandHelp} from '../help.ts';
import {advertisedUrl, allowedHostnames, exposureWarning, listenOn, listenPlan} from '../listen.ts';
import {packageRoot} from '../package-root.ts';
import {stopOnSignals} from '../signals.ts';
import {createWebApp} from '../web/app.ts';
import {createBoardHub} from '../web/board-hub.ts';
import {boardAdapters} from './board.ts';

/** Where `web` listens unless told: loopback, this port (serve's is 8420). */
const DEFAULT_PORT = 8421;

export const help: CommandHelp = {
	synopsis: ['web [--listen ADDR:PORT] [--public-url URL]'],
	description: `The board in a browser: the same panels as the terminal board, live (an event stream),
a task's timeline and why at /task/ID, the board's keys (j/k, enter, esc, ?) where a keyboard
exists, one column at a phone's width. The first response carries the board, so the page reads
without its script. Loopback unless --listen says otherwise, as serve. Runs until stopped
(SIGTERM: exit 143). Docs: docs/web.md.`,
	options: [
		[
			'--listen ADDR:PORT',
			`where to listen (default 127.0.0.1:${DEFAULT_PORT}; port 0: any free one); not loopback needs --public-url`,
		],
		['--public-url URL', 'the https address a TLS terminator in front serves (the address links name)'],
	],
	exits: [
		['0', 'stopped cleanly'],
		['64', 'bad command line (--listen, --public-url, a non-loopback address without --public-url)'],
		['69', 'the port is taken'],
		['78', 'the config file is wrong'],
		['128+N', 'stopped by signal N (SIGTERM 143, Ctrl-C 130), after closing its connections'],
	],
	examples: [
		['controlroom web', `the board at http://127.0.0.1:${DEFAULT_PORT}/ for a browser on this machine`],
		['ssh -L 8421:127.0.0.1:8421 workstation', "from a laptop: the workstation's board at http://127.0.0.1:8421/"],
	],
};

/** The keys of the commands the page answers, from the key table in force. */
function pageKeys(table: readonly KeyBinding[]): Record<string, readonly string[]> {
	// The page is the board's list (and a drill-down's timeline): the keys those modes give each command.
	const of = (command: BoardCommand): readonly string[] =>
		table.filter(binding => binding.command === command && binding.modes.includes('list')).flatMap(binding => binding.keys);
	return {
		down: of(BoardCommand.down),
		up: of(BoardCommand.up),
		open: of(BoardCommand.open),
		back: of(BoardCommand.back),
		help: of(BoardCommand.help),
	};
}

async function web(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('web', argv, {
		listen: {type: 'string'},
		'public-url': {type: 'string'},
	});
	if (positionals.length > 0) throw new CliError(`web: unexpected argument '${terminalSafe(positionals[0] ?? '')}'`, USAGE_EXIT);
	const plan = listenPlan({listen: values.listen, publicUrl: values['public-url']}, DEFAULT_PORT);
	const look = boardLook();
	const ledger = openCommandLedger(values.ledger, {mode: 'create', onMove: 'stay'});
	const log = (line: string): void => void process.stderr.write(`controlroom web: ${terminalSafe(line)}\n`);
	const stopping = stopOnSignals();
	const http = createServer();
	http.keepAliveTimeout = 65_000;
	http.headersTimeout = 66_000;
	const adapters = boardAdapters(ledger, {isBellOn: false, look});
	const hub = createBoardHub(adapters);
	const scriptPath = join(packageRoot(), 'dist', 'web', 'board.js');
	let script: string | null = null;
	try {
		const port = await listenOn(http, plan, 'web');
		const baseUrl = advertisedUrl(plan, port);
		http.on(
			'request',
			createWebApp({
				hub,
				script: () => (script ??= readFileSync(scriptPath, 'utf8')),
				allowedHostnames: allowedHostnames(plan),
				keys: pageKeys(look.keyTable ?? KEY_TABLE),
			}),
		);
		const warning = exposureWarning(plan);
		if (warning !== null) log(`warning: ${warning}`);
		out(`web: listening on ${plan.host}:${port}; the board at ${baseUrl.href}`);
		await new Promise<void>(resolve => stopping.signal.addEventListener('abort', () => resolve(), {once: true}));
		await new Promise<void>(resolve => {
			http.close(() => resolve());
			http.closeIdleConnections();
			http.closeAllConnections();
		});
		return stopping.exitCode() ?? 0;
	} finally {
		stopping.dispose();
		hub.close();
		http.closeAllConnections();
		ledger.close();
	}
}

/** `controlroom web`. */
export async function run(argv: readonly string[]): Promise<number> {
	return web(argv);
}
