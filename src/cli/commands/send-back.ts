import {sendBack} from '../../gates/review/send-back.ts';
import {boundedText, parseCommandArgs} from '../args.ts';
import {openCommandLedger, out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import type {CommandHelp} from '../help.ts';
import {commandSettings} from '../config-file.ts';
import {gateCall, selfLauncher} from '../gate-call.ts';

export const help: CommandHelp = {
	synopsis: ['send-back TASK --reason TEXT [--as NAME] [--json]'],
	description: `Sends work back with a reason, as x does on the board: a task in the reviews lane or a failed task
runs again through the wrapper, in the background, with the reason added to its brief (its output
goes to a log file beside the ledger); a hand-in waiting for its acceptor is returned to the pool,
the reason shown first to its next taker. See docs/review.md.`,
	options: [
		['--reason TEXT', 'what should be done differently (required; one line)'],
		['--as NAME', 'who sends it back (default: the OS user)'],
		['--json', 'the result as JSON: {taskId, from, rerunTaskId, logPath, briefPath, claimReturned, message}'],
	],
	exits: [
		['0', 'sent back'],
		[
			'1',
			'refused: no such task, it is not waiting for a person, or it cannot be run again (one line says why; a task whose runs failed failedRunLimit times, default 2, waits in Needs you instead)',
		],
		['77', 'refused: an agent asked (only a person at a terminal says yes; recorded, and shown on the board; docs/security.md)'],
		['64', 'bad command line (a TASK that matches several tasks, no TASK, no --reason), or no ledger at --ledger PATH'],
	],
	examples: [
		['controlroom send-back w-3f2a --reason "keep the old CSV header"', 'the worker of w-3f2a runs again with the reason'],
	],
};

/** `controlroom send-back TASK --reason TEXT` (docs/review.md). */
export async function run(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('send-back', argv, {
		reason: {type: 'string'},
		as: {type: 'string'},
		json: {type: 'boolean'},
	});
	const ref = positionals[0];
	if (ref === undefined || positionals.length > 1) throw new CliError('send-back: expected one TASK', USAGE_EXIT);
	if (values.reason === undefined || values.reason.trim() === '') throw new CliError('send-back: --reason: required', USAGE_EXIT);
	boundedText('--reason', values.reason);
	const {passBackLimit, failedRunLimit} = commandSettings({passBackLimit: undefined, failedRunLimit: undefined});
	const ledger = openCommandLedger(values.ledger, {mode: 'existing'});
	try {
		const result = await gateCall(() =>
			sendBack({
				ledger,
				ref,
				reason: values.reason ?? '',
				by: values.as ?? null,
				source: 'cli',
				launcher: selfLauncher(),
				passBackLimit,
				failedRunLimit,
			}),
		);
		if (values.json) out(JSON.stringify({version: 1, ...result}, null, 2));
		else out(result.logPath ? `${result.message} (log: ${result.logPath})` : result.message);
		return 0;
	} finally {
		ledger.close();
	}
}
