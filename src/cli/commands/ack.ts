import {acknowledgeEntry} from '../../gates/queue-actions.ts';
import {parseCommandArgs} from '../args.ts';
import {openCommandLedger, out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import type {CommandHelp} from '../help.ts';
import {gateCall} from '../gate-call.ts';

export const help: CommandHelp = {
	synopsis: ['ack TASK'],
	description: `Acknowledges TASK's entry in the human queue, as k does on the board: it leaves the queue until a
newer signal comes for that task. TASK is a queue entry's id (a task, or a need-... of its own) or
a unique prefix of one.`,
	options: [],
	exits: [
		['0', 'acknowledged'],
		['1', 'nothing in the queue for TASK'],
		['77', 'refused: an agent asked (only a person at a terminal says yes; recorded, and shown on the board; docs/security.md)'],
		['64', 'bad command line (a TASK that matches several tasks, no TASK), or no ledger at --ledger PATH'],
	],
	examples: [['controlroom ack need-4e1a', 'acknowledges the need need-4e1a']],
};

/** `controlroom ack TASK`. */
export async function run(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('ack', argv, {});
	const ref = positionals[0];
	if (ref === undefined || positionals.length > 1) throw new CliError('ack: expected one TASK', USAGE_EXIT);
	const ledger = openCommandLedger(values.ledger, {mode: 'existing'});
	try {
		const entry = await gateCall(() => acknowledgeEntry(ledger, ref, 'cli'));
		out(`acknowledged ${entry.taskId} (${entry.lane}: ${entry.reason})`);
		return 0;
	} finally {
		ledger.close();
	}
}
