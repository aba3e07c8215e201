import {raiseNeedByHand} from '../../gates/queue-actions.ts';
import {parseCommandArgs} from '../args.ts';
import {openCommandLedger, out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import type {CommandHelp} from '../help.ts';
import {gateCall} from '../gate-call.ts';

export const help: CommandHelp = {
	synopsis: ['need "TEXT" [--task TASK]'],
	description: `Puts a need in the queue's needs lane, on a task or on its own (it then gets an id, need-...,
that ack takes). It stays until acknowledged (controlroom ack, or k on the board).`,
	options: [['--task TASK', 'the task the need is about (an id or a unique prefix)']],
	exits: [
		['0', 'the need is in the queue (its id is printed)'],
		['1', 'refused: no such task, an empty TEXT, or one over 4,000 characters'],
		['64', 'bad command line (not exactly one TEXT, a --task that matches several tasks), or no ledger at --ledger PATH'],
	],
	examples: [
		['controlroom need "decide which branch the release goes on"', 'a need of your own'],
		['controlroom need "check its numbers" --task w-3f2a', 'a need on task w-3f2a'],
	],
};

/** `controlroom need "TEXT" [--task TASK]`. */
export async function run(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('need', argv, {task: {type: 'string'}});
	if (positionals.length !== 1) throw new CliError('need: expected one TEXT (quote it)', USAGE_EXIT);
	const ledger = openCommandLedger(values.ledger, {mode: 'existing'});
	try {
		const {taskId} = await gateCall(() =>
			raiseNeedByHand(ledger, {message: positionals[0] ?? '', taskRef: values.task ?? null, source: 'cli'}),
		);
		out(`needs you: ${taskId}`);
		return 0;
	} finally {
		ledger.close();
	}
}
