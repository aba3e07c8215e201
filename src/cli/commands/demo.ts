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
import {boardLook} from '../board-look.ts';
import {DEMO_RECONCILE_MS, DEMO_STALL_SECONDS} from '../demo/timing.ts';
import {loadPriceTable} from '../price-file.ts';

export const help: CommandHelp = {
	synopsis: ['demo [--read-only]'],
	description: `Starts simulated agents in a scratch ledger (a temporary CONTROLROOM_HOME) and opens the board
on it. They report as real agents do, through the real wrapper, hooks, transcripts and telemetry
receiver, so within seconds rows show tokens, dollars and the burn rate: a Claude Code session
with two helpers (its tree), then waiting at a permission prompt and going quiet (stalled after
${DEMO_STALL_SECONDS} s in the demo); a wrapped claude -p run that crosses its 30k budget and asks
for more in Decisions (tab, then a on it; enter adds what it offers); one that finishes with
Claude's own cost; a Codex run with its plan and tokens; one that declares progress; one that
crashes (found lost); a process named codex nobody registered (untracked); a write held in Held
effects (a approves it) and a review that needs you (x sends it back). Only the demo's own
processes show, and no agent CLI is needed: the demo's stand-ins play claude and codex, offline.
Quitting stops them all and prints where the demo ledger was kept. Your own ledger is not
touched. docs/demo.md.`,
	options: [
		['--read-only', 'the board as `board --read-only` shows it: no key that acts'],
		['--files-upstream DIR', "used by the demo itself: serves DIR as its work order's MCP upstream"],
		['--stand-in claude|codex', "used by the demo itself: its agents' stand-in for that CLI, given the CLI's own arguments"],
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

/** The demo's stand-ins for the agents' CLIs, run as `claude` and `codex` from its agents folder (src/cli/demo/). */
async function runStandIn(agent: string | undefined, argv: readonly string[]): Promise<number> {
	if (agent === 'claude') return (await import('../demo/claude-stand-in.ts')).runClaudeStandIn(argv);
	if (agent === 'codex') return (await import('../demo/codex-stand-in.ts')).runCodexStandIn(argv);
	throw new CliError(`demo: --stand-in: expected claude or codex, got '${agent ?? ''}'`, USAGE_EXIT);
}

/** \`controlroom demo\`: the board, alive, in one command. */
export async function run(argv: readonly string[]): Promise<number> {
	// A stand-in takes the agent's own command line as it is: it is not parsed as the demo's.
	if (argv[0] === '--stand-in') return runStandIn(argv[1], argv.slice(2));
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
	// The agents start first, the board's modules load while they do: the first frame has something to show.
	const [{startDemo}, {startReceiver}] = await Promise.all([import('../demo/agents.ts'), import('../../otel/receiver.ts')]);
	const home = mkdtempSync(join(tmpdir(), 'controlroom-demo-'));
	const ledger = openLedger(join(home, 'ledger.db'));
	// The agents' own telemetry has a receiver, as \`board --otel-port\` runs one: on a free loopback port.
	const receiver = await startReceiver(ledger, 0, {
		prices: loadPriceTable(),
		onReport: () => undefined,
		onRefused: () => undefined,
		onError: () => undefined,
	});
	const demo = startDemo(join(packageRoot(), 'bin', 'controlroom'), home, ledger, receiver.url);
	let status: number;
	try {
		const {showBoard} = await import('./board.ts');
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
		await receiver.close();
		ledger.close();
	}
	out(`demo ledger kept at ${ledger.path} (look again with: ${invocation()} --ledger ${ledger.path})`);
	return status;
}
