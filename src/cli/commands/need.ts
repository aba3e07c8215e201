import {ASKED_NEED_KINDS, type AskedNeedKind} from '../../core/stats/need-kinds.ts';
import {terminalSafe} from '../../core/terminal-text.ts';
import {raiseNeedByHand} from '../../gates/queue-actions.ts';
import {parseCommandArgs} from '../args.ts';
import {openCommandLedger, out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import type {CommandHelp} from '../help.ts';
import {gateCall} from '../gate-call.ts';

export const help: CommandHelp = {
	synopsis: ['need "TEXT" [--task TASK] [--kind KIND]'],
	description: `Puts a need in the queue's needs lane, on a task or on its own (it then gets an id, need-...,
that ack takes). It stays until acknowledged (controlroom ack, or k on the board).`,
	options: [
		['--task TASK', 'the task the need is about (an id or a unique prefix)'],
		[
			'--kind KIND',
			'missing_info: what was handed over lacks something needed to go on (counted by controlroom stats, docs/stats.md)',
		],
	],
	exits: [
		['0', 'the need is in the queue (its id is printed)'],
		['1', 'refused: no such task, an empty TEXT, or one over 4,000 characters'],
		[
			'64',
			'bad command line (not exactly one TEXT, a --task that matches several tasks, an unknown --kind), or no ledger at --ledger PATH',
		],
	],
	examples: [
		['controlroom need "decide which branch the release goes on"', 'a need of your own'],
		['controlroom need "check its numbers" --task w-3f2a', 'a need on task w-3f2a'],
		['controlroom need "which table holds the totals?" --task claim-ab12-1 --kind missing_info', 'the contract left it out'],
	],
	choices: {KIND: ASKED_NEED_KINDS},
};

/** The --kind given, checked against the kinds a need may have. */
function kindOf(given: string | undefined): AskedNeedKind | null {
	if (given === undefined) return null;
	const kind = ASKED_NEED_KINDS.find(known => known === given);
	if (kind === undefined)
		throw new CliError(`need: --kind must be ${ASKED_NEED_KINDS.join(' or ')}, not '${terminalSafe(given)}'`, USAGE_EXIT);
	return kind;
}

/** `controlroom need "TEXT" [--task TASK] [--kind KIND]`. */
export async function run(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('need', argv, {task: {type: 'string'}, kind: {type: 'string'}});
	if (positionals.length !== 1) throw new CliError('need: expected one TEXT (quote it)', USAGE_EXIT);
	const kind = kindOf(values.kind);
	const ledger = openCommandLedger(values.ledger, {mode: 'existing'});
	try {
		const {taskId} = await gateCall(() =>
			raiseNeedByHand(ledger, {message: positionals[0] ?? '', taskRef: values.task ?? null, source: 'cli', kind}),
		);
		out(`needs you: ${taskId}`);
		return 0;
	} finally {
		ledger.close();
	}
}
