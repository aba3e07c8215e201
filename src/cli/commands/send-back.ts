import {sendBack} from '../../gates/review/send-back.ts';
import {boundedText, parseCommandArgs} from '../args.ts';
import {openCommandLedger, out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import type {CommandHelp} from '../help.ts';
import {commandSettings} from '../config-file.ts';
import {gateCall, selfLauncher} from '../gate-call.ts';
import {takeLineFlags} from '../line-flags.ts';

export const help: CommandHelp = {
	synopsis: [
		'send-back TASK --reason TEXT [--as NAME] [--json]',
		'send-back TASK --line N --unmet REASON [--line N --met ...] [--reason TEXT] [--as NAME] [--json]',
	],
	description: `Sends work back with a reason, as x does on the board: a task in the reviews lane or a failed task
runs again through the wrapper, in the background, with the reason added to its brief (its output
goes to a log file beside the ledger); a hand-in waiting for its acceptor is returned to the pool,
the reason shown first to its next taker. On a hand-in, an acceptor (--as NAME, else the OS user)
may give verdicts line by line first, as accept does: what goes back to the next attempt is every
acceptance line unmet on this hand-in (these and those recorded with accept --line N --unmet), each
with its text and reasons, and the --reason if given; never a met line. See docs/review.md and
docs/contracts.md.`,
	options: [
		['--reason TEXT', 'what should be done differently (one line; required unless a line is unmet)'],
		['--line N --unmet REASON', 'on a hand-in: acceptance line N is not met, and why; repeatable'],
		['--line N --met', 'on a hand-in: acceptance line N is met (it does not go back); repeatable'],
		['--as NAME', 'who sends it back (default: the OS user)'],
		['--json', 'the result as JSON: {taskId, from, rerunTaskId, logPath, briefPath, claimReturned, message}'],
	],
	exits: [
		['0', 'sent back'],
		[
			'1',
			'refused: no such task, it is not waiting for a person, it cannot be run again (a task whose runs failed failedRunLimit times, default 2, waits in Needs you instead), --line on what is not a hand-in, a line NAME does not accept or the contract does not have, a line given both --met and --unmet, or nothing unmet and no --reason (one line says which)',
		],
		['77', 'refused: an agent asked (only a person at a terminal says yes; recorded, and shown on the board; docs/security.md)'],
		[
			'64',
			'bad command line (a TASK that matches several tasks, no TASK, neither --reason nor --line, --line without --met or --unmet REASON, a reason with control characters or too long), or no ledger at --ledger PATH',
		],
	],
	examples: [
		['controlroom send-back w-3f2a --reason "keep the old CSV header"', 'the worker of w-3f2a runs again with the reason'],
		[
			'controlroom send-back c-7f31 --as lee --line 2 --unmet "the empty filter exports every row"',
			'the hand-in goes back with line 2 and its reason, for the next taker to read first',
		],
	],
};

/** `controlroom send-back TASK --reason TEXT` (docs/review.md). */
export async function run(argv: readonly string[]): Promise<number> {
	const {verdicts, rest} = takeLineFlags('send-back', argv);
	const {values, positionals} = parseCommandArgs('send-back', rest, {
		reason: {type: 'string'},
		as: {type: 'string'},
		json: {type: 'boolean'},
	});
	const ref = positionals[0];
	if (ref === undefined || positionals.length > 1) throw new CliError('send-back: expected one TASK', USAGE_EXIT);
	if ((values.reason === undefined || values.reason.trim() === '') && verdicts.length === 0)
		throw new CliError('send-back: --reason: required (or --line N --unmet REASON on a hand-in)', USAGE_EXIT);
	boundedText('--reason', values.reason);
	const {passBackLimit, failedRunLimit} = commandSettings({passBackLimit: undefined, failedRunLimit: undefined});
	const ledger = openCommandLedger(values.ledger, {mode: 'existing'});
	try {
		const result = await gateCall(() =>
			sendBack({
				ledger,
				ref,
				reason: values.reason ?? '',
				lines: verdicts,
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
