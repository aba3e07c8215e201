import {mkdtempSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {openLedger} from '../../ledger/open-ledger.ts';
import {parseCommandArgs} from '../args.ts';
import {commandSettings} from '../config-file.ts';
import {out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import type {CommandHelp} from '../help.ts';
import {invocation, packageRoot, packageVersion} from '../package-root.ts';
import {DEMO_RECONCILE_MS, DEMO_STALL_SECONDS, startDemo} from '../demo/agents.ts';
import {boardLook, showBoard} from './board.ts';

export const help: CommandHelp = {
	synopsis: ['demo [--read-only]'],
	description: `Starts simulated agents in a scratch ledger (a temporary CONTROLROOM_HOME) through the real
wrapper and the real hook, and opens the board on it: one declares progress, one finishes, one
crashes (found lost), a Claude Code session goes quiet (stalled after ${DEMO_STALL_SECONDS} s in the demo),
a process named codex nobody registered shows as untracked, a write waits in Held effects (tab,
then a approves it) and a review that needs you waits in Needs you (x sends it back). Only the
demo's own processes show. Quitting stops them all and
prints where the demo ledger was kept. Your own ledger is not touched.`,
	options: [
		['--read-only', 'the board as `board --read-only` shows it: no key that acts'],
		['--files-upstream DIR', "used by the demo itself: serves DIR as its work order's MCP upstream"],
	],
	hasNoLedger: true,
	exits: [
		['0', 'quit with q'],
		['64', 'bad command line, or not a terminal'],
		['78', 'the config file is wrong (a board key or colour it does not know: the line names it; docs/config.md)'],
		['128+N', 'ended by signal N: Ctrl-C gives 130'],
	],
	examples: [['controlroom demo', 'the board, alive, in one command (q quits)']],
};

/** \`controlroom demo\`: the board, alive, in one command. */
export async function run(argv: readonly string[]): Promise<number> {
	const {values} = parseCommandArgs('demo', argv, {'files-upstream': {type: 'string'}, 'read-only': {type: 'boolean'}}, false);
	// The demo's own upstream for its work order (gate-work.ts), started by the gateway and by an approval.
	if (values['files-upstream'] !== undefined) {
		const {serveDemoFiles} = await import('../demo/files-upstream.ts');
		await serveDemoFiles(values['files-upstream'], packageVersion());
		return 0;
	}
	if (values.ledger !== undefined)
		throw new CliError('demo: takes no --ledger; it runs on a scratch ledger of its own and says where it kept it', USAGE_EXIT);
	if (!process.stdin.isTTY || !process.stdout.isTTY)
		throw new CliError('demo: needs a terminal (it opens the board)', USAGE_EXIT);
	// The keys and colours in force, checked before anything starts (a wrong name: one line, exit 78).
	const look = boardLook();
	const home = mkdtempSync(join(tmpdir(), 'controlroom-demo-'));
	const ledger = openLedger(join(home, 'ledger.db'));
	const demo = startDemo(join(packageRoot(), 'bin', 'controlroom'), home, ledger);
	let status: number;
	try {
		// Only the demo's own processes are looked at for untracked agents: never the machine's others.
		status = await showBoard(ledger, {
			stallSeconds: DEMO_STALL_SECONDS,
			reconcileIntervalMs: DEMO_RECONCILE_MS,
			untrackedUnder: process.pid,
			look,
			isMouseOn: commandSettings({mouse: undefined}).mouse,
			...(values['read-only'] === true ? {isReadOnly: true} : {}),
		});
	} finally {
		await demo.stop();
		ledger.close();
	}
	out(`demo ledger kept at ${ledger.path} (look again with: ${invocation()} --ledger ${ledger.path})`);
	return status;
}
