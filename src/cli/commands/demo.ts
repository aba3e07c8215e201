import {mkdtempSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {openLedger} from '../../ledger/open-ledger.ts';
import {parseCommandArgs} from '../args.ts';
import {out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import {packageRoot} from '../package-root.ts';
import {DEMO_RECONCILE_MS, DEMO_STALL_SECONDS, startDemo} from '../demo/agents.ts';
import {showBoard} from './board.ts';

export const usage = `controlroom demo
  Starts simulated agents in a scratch ledger (a temporary CONTROLROOM_HOME) through the real
  wrapper and the real hook, and opens the board on it: one declares progress, one finishes, one
  crashes (found lost), a Claude Code session goes quiet (stalled after ${DEMO_STALL_SECONDS} s in the demo)
  and a process named codex nobody registered shows as untracked. Quitting stops them all.`;

/** \`controlroom demo\`: the board, alive, in one command. */
export async function run(argv: readonly string[]): Promise<number> {
	const {values} = parseCommandArgs('demo', argv, {}, false);
	if (values.help) return (out(usage), 0);
	if (!process.stdin.isTTY || !process.stdout.isTTY)
		throw new CliError('demo: needs a terminal (it opens the board)', USAGE_EXIT);
	const home = mkdtempSync(join(tmpdir(), 'controlroom-demo-'));
	const ledger = openLedger(join(home, 'ledger.db'));
	const demo = startDemo(join(packageRoot(), 'bin', 'controlroom'), home, ledger);
	let status: number;
	try {
		status = await showBoard(ledger, {stallSeconds: DEMO_STALL_SECONDS, reconcileIntervalMs: DEMO_RECONCILE_MS});
	} finally {
		await demo.stop();
		ledger.close();
	}
	out(`demo ledger kept at ${ledger.path} (look again with: controlroom --ledger ${ledger.path})`);
	return status;
}
