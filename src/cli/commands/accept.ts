import {acceptHandIn} from '../../gates/queue-actions.ts';
import {boundedText, parseCommandArgs} from '../args.ts';
import {openCommandLedger, out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import type {CommandHelp} from '../help.ts';
import {gateCall} from '../gate-call.ts';
import {terminalSafe} from '../../core/terminal-text.ts';

export const help: CommandHelp = {
	synopsis: ['accept TASK [--as NAME] [--note TEXT]'],
	description: `Accepts a hand-in that waits for its acceptor: it leaves the queue's waiting lane, and the
acceptance (who, the OS user who said yes, and the note) is recorded on the claim, which then reads
accepted in work, the board and JSON. Only a person at a terminal accepts, and never the one who
did the work (its operator or holder). A hand-in whose contract names no acceptor waits until a
person names one (controlroom contract ready FILE); a screenshot a UI acceptance line asks for must
have been looked at first (controlroom looked TASK). See docs/contracts.md and docs/security.md.`,
	options: [
		['--as NAME', 'the person who accepts (default: the OS user); never a worker or the one who did the work'],
		['--note TEXT', 'a note recorded with the acceptance'],
	],
	exits: [
		['0', 'accepted'],
		[
			'1',
			'refused: no such task, not a hand-in waiting for its acceptor, nobody named to accept it yet, a screenshot not looked at, already accepted, or NAME did the work or is a worker (one line says which)',
		],
		['77', 'refused: an agent asked (only a person at a terminal says yes; recorded, and shown on the board; docs/security.md)'],
		['64', 'bad command line (a TASK that matches several tasks, no TASK), or no ledger at --ledger PATH'],
	],
	examples: [['controlroom accept c-7f31 --note "checked the CSV by hand"', 'closes the hand-in c-7f31']],
};

/** `controlroom accept TASK`. */
export async function run(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('accept', argv, {as: {type: 'string'}, note: {type: 'string'}});
	const ref = positionals[0];
	if (ref === undefined || positionals.length > 1) throw new CliError('accept: expected one TASK', USAGE_EXIT);
	boundedText('--note', values.note);
	const ledger = openCommandLedger(values.ledger, {mode: 'existing'});
	try {
		if (values.as !== undefined && values.as.trim() === '') throw new CliError('accept: --as: expected a name', USAGE_EXIT);
		const {taskId, by} = await gateCall(() =>
			acceptHandIn(ledger, {ref, as: values.as ?? null, note: values.note ?? null, source: 'cli'}),
		);
		out(`accepted ${terminalSafe(taskId)} (by ${terminalSafe(by)})`);
		return 0;
	} finally {
		ledger.close();
	}
}
