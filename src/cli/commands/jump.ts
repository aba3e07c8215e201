import {terminalSafe} from '../../core/terminal-text.ts';
import {hostName} from '../../ledger/host.ts';
import {jumpToTask} from '../../producers/tmux-jump.ts';
import {parseCommandArgs, taskArgument} from '../args.ts';
import {out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import type {CommandHelp} from '../help.ts';
import {isFleetUrl} from '../../ledger/fleet/connection.ts';
import {openReadingLedger} from '../reading-ledger.ts';

export const help: CommandHelp = {
	synopsis: ['jump TASK'],
	description: `Takes your tmux client to the pane the task's agent runs in, as t does on the board: selects its
window and pane, and switches your client to its session when that is another one. Run it from a
tmux pane; prefix B (the binding in docs/tmux.md) comes back to the pane you jumped from. The pane is the one the agent's hooks or wrapper last
reported; tmux keeps a pane's id when the pane is moved, so a moved pane is still found.`,
	options: [],
	exits: [
		['0', 'your client is on the pane'],
		[
			'1',
			'refused, in one line: no such task, it does not run in tmux, you are not in tmux, another tmux server or host, the pane is gone, or no client shows your pane',
		],
		['64', 'bad command line (no TASK, one that matches several tasks, a fleet ledger), or no ledger at --ledger PATH'],
	],
	examples: [['controlroom jump c-3f2a', "to the pane of session c-3f2a's agent"]],
};

/** `controlroom jump TASK`. */
export async function run(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('jump', argv, {});
	const ref = taskArgument('jump', positionals);
	if (isFleetUrl(values.ledger)) throw new CliError('jump: panes are on this host: use the local ledger', USAGE_EXIT);
	const ledger = openReadingLedger(values.ledger, 'existing');
	try {
		const task = ledger.reader.resolveTask(ref);
		const outcome = jumpToTask(task?.id ?? ref, task, {thisHost: hostName()});
		if (outcome.isJumped) out(terminalSafe(outcome.message));
		else process.stderr.write(`controlroom: jump: ${terminalSafe(outcome.message)}\n`);
		return outcome.isJumped ? 0 : 1;
	} finally {
		ledger.close();
	}
}
