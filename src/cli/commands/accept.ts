import {acceptHandIn} from '../../gates/queue-actions.ts';
import {boundedText, parseCommandArgs} from '../args.ts';
import {openCommandLedger, out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import type {CommandHelp} from '../help.ts';
import {gateCall, personName} from '../gate-call.ts';

export const help: CommandHelp = {
	synopsis: ['accept TASK [--as NAME] [--note TEXT]'],
	description: `Accepts a hand-in that waits for its acceptor: it leaves the queue's waiting lane, and the
acceptance (who, and the note) is recorded on the claim. See docs/review.md.`,
	options: [
		['--as NAME', 'who accepts (default: $USER)'],
		['--note TEXT', 'a note recorded with the acceptance'],
	],
	exits: [
		['0', 'accepted'],
		['1', 'refused: no such task, or it is not a hand-in waiting for its acceptor (one line says which)'],
		['64', 'bad command line (no TASK), or no ledger at --ledger PATH'],
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
		const by = personName(values.as);
		const {taskId} = await gateCall(() => acceptHandIn(ledger, {ref, by, note: values.note ?? null, source: 'cli'}));
		out(`accepted ${taskId} (by ${by})`);
		return 0;
	} finally {
		ledger.close();
	}
}
