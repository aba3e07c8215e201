import {acceptHandIn} from '../../gates/queue-actions.ts';
import {boundedText, parseCommandArgs} from '../args.ts';
import {openCommandLedger, out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import type {CommandHelp} from '../help.ts';
import {gateCall} from '../gate-call.ts';
import {terminalSafe} from '../../core/terminal-text.ts';
import {lineList} from '../../core/contract/line-verdicts.ts';
import {takeLineFlags} from '../line-flags.ts';
import type {AcceptResult} from '../../gates/queue-actions.ts';

/** `accepted c-7f31 (by lee)`, or what this accept recorded and who still owes what. */
function acceptedLine(result: AcceptResult): string {
	if (result.accepted) return `accepted ${result.taskId} (by ${result.by})`;
	const unmet =
		result.unmet.length > 0
			? `; ${lineList(result.unmet.map(verdict => verdict.line))} not met (controlroom send-back ${result.taskId} returns it)`
			: '';
	return `${result.taskId} still open: ${result.waiting ?? 'nothing owed'}${unmet}`;
}

export const help: CommandHelp = {
	synopsis: ['accept TASK [--as NAME] [--line N --met | --line N --unmet REASON ...] [--note TEXT]'],
	description: `Accepts a hand-in line by line, as one of its acceptors. Each acceptor the contract names accepts
the acceptance lines given to them (their duties); the hand-in is accepted only when every acceptor
has said met for every line of theirs, and until then it stays open, saying who still owes what
(waiting for lee: lines 2, 3). Without --line, NAME says met for every line of theirs (the old
one-word form, which completes a hand-in with one acceptor). --line N --unmet REASON records a line
that is not met (send-back then carries it to the next attempt). Each verdict is recorded on the
claim with who gave it and the OS user who said yes; the acceptance, once complete, reads accepted
in work, the board and JSON. Only a person at a terminal accepts, never the one who did the work,
and never lines that are another acceptor's. A hand-in whose contract names no acceptor waits until
a person names one (controlroom contract ready FILE); a screenshot a UI acceptance line asks for
must have been looked at first (controlroom looked TASK). See docs/contracts.md and
docs/security.md.`,
	options: [
		[
			'--as NAME',
			'the acceptor who accepts (default: the OS user); one the contract names, never a worker or the one who did the work',
		],
		['--line N --met', 'acceptance line N (from 1) is met; repeatable'],
		['--line N --unmet REASON', 'acceptance line N is not met, and why (one line, plain text); repeatable'],
		['--note TEXT', 'a note recorded with the acceptance'],
	],
	exits: [
		['0', 'accepted'],
		[
			'1',
			'refused: no such task, not a hand-in waiting for its acceptor, nobody named to accept it yet, a screenshot not looked at, already accepted, NAME did the work, is a worker or is not one of its acceptors, a line NAME does not accept, a line the contract does not have, or a line given both --met and --unmet (one line says which)',
		],
		['77', 'refused: an agent asked (only a person at a terminal says yes; recorded, and shown on the board; docs/security.md)'],
		[
			'64',
			'bad command line (a TASK that matches several tasks, no TASK, --line without --met or --unmet REASON, a reason with control characters or too long), or no ledger at --ledger PATH',
		],
	],
	examples: [
		['controlroom accept c-7f31 --as dana', 'dana says met for every line of hers'],
		[
			'controlroom accept c-7f31 --as lee --line 2 --met --line 3 --unmet "no test for an empty filter"',
			'lee says line 2 is met and line 3 is not',
		],
	],
};

/** `controlroom accept TASK`. */
export async function run(argv: readonly string[]): Promise<number> {
	const {verdicts, rest} = takeLineFlags('accept', argv);
	const {values, positionals} = parseCommandArgs('accept', rest, {as: {type: 'string'}, note: {type: 'string'}});
	const ref = positionals[0];
	if (ref === undefined || positionals.length > 1) throw new CliError('accept: expected one TASK', USAGE_EXIT);
	boundedText('--note', values.note);
	const ledger = openCommandLedger(values.ledger, {mode: 'existing'});
	try {
		if (values.as !== undefined && values.as.trim() === '') throw new CliError('accept: --as: expected a name', USAGE_EXIT);
		const result = await gateCall(() =>
			acceptHandIn(ledger, {ref, as: values.as ?? null, note: values.note ?? null, source: 'cli', lines: verdicts}),
		);
		out(terminalSafe(acceptedLine(result)));
		return 0;
	} finally {
		ledger.close();
	}
}
