import {recordProgress} from '../../handoff/claims.ts';
import {parseCommandArgs} from '../args.ts';
import {openCommandLedger, out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import {reportRefusal} from '../handoff-report.ts';

export const usage = `controlroom progress TASK "note" [--ledger PATH]
  Records a note on a claim you hold and renews its 30-minute lease.`;

/** `controlroom progress TASK "note"`. */
export async function run(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('progress', argv, {});
	if (values.help) return (out(usage), 0);
	const [ref, note] = positionals;
	if (ref === undefined || note === undefined || positionals.length > 2)
		throw new CliError('progress: expected TASK and one "note"', USAGE_EXIT);
	const ledger = openCommandLedger(values.ledger, {isReading: true});
	try {
		return reportRefusal(() => {
			const task = recordProgress({ledger, source: 'cli'}, ref, note);
			out(`noted on ${task.id}; lease renewed`);
			return 0;
		});
	} finally {
		ledger.close();
	}
}
