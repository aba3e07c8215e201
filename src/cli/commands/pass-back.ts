import {passBack} from '../../handoff/claims.ts';
import {contractKeyOfClaim, passBackRefusal} from '../../handoff/pass-back-limit.ts';
import {boundedText, parseCommandArgs, taskArgument} from '../args.ts';
import {openCommandLedger, out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import {reportRefusal} from '../handoff-report.ts';
import type {CommandHelp} from '../help.ts';
import {commandSettings} from '../config-file.ts';
import {workerIdentity} from '../worker-identity.ts';

export const help: CommandHelp = {
	synopsis: ['pass-back TASK --reason "..." [--as NAME]'],
	description: `Frees a claim; the reason is the first thing the next taker sees. A worker (--as NAME, or
$CONTROLROOM_WORKER) may pass back only a claim it holds; without one, a person at the terminal
acts (recorded as $USER), for instance to free a stalled claim. The pass-back past passBackLimit
(config file, default 2) puts the contract in Needs you: no worker takes it until a person hands it
over with take --for.`,
	options: [
		['--reason TEXT', 'why it is passed back (required)'],
		['--as NAME', 'who acts: refused unless NAME holds the claim'],
	],
	exits: [
		['0', 'passed back; the contract is free to take'],
		['1', 'refused: no such claim, it has ended, or NAME does not hold it (the holder is named)'],
		['64', 'bad command line (a TASK that matches several tasks, no TASK, no --reason), or no ledger at --ledger PATH'],
	],
	examples: [
		['controlroom pass-back claim-3f2c1e0a9b1d-1 --reason "needs a database I cannot reach"', 'frees the claim with its reason'],
	],
};

/** `controlroom pass-back TASK --reason`. */
export async function run(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('pass-back', argv, {reason: {type: 'string'}, as: {type: 'string'}});
	const ref = taskArgument('pass-back', positionals);
	if (values.reason === undefined || values.reason.trim() === '') throw new CliError('pass-back: --reason: required', USAGE_EXIT);
	boundedText('--reason', values.reason);
	const identity = workerIdentity('pass-back', values.as);
	const {passBackLimit} = commandSettings({passBackLimit: undefined});
	const ledger = openCommandLedger(values.ledger, {mode: 'existing'});
	try {
		return reportRefusal(() => {
			const task = passBack({ledger, source: 'cli', identity}, ref, values.reason ?? '', passBackLimit);
			const key = contractKeyOfClaim(ledger, task.id);
			const capped = key === null ? null : passBackRefusal(ledger, key, passBackLimit);
			out(`passed ${task.id} back; ${capped ?? 'the contract is free to take'}`);
			return 0;
		});
	} finally {
		ledger.close();
	}
}
