import {passBack} from '../../handoff/claims.ts';
import {parseCommandArgs} from '../args.ts';
import {openCommandLedger, out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import {reportRefusal} from '../handoff-report.ts';

export const usage = `controlroom pass-back TASK --reason "..." [--ledger PATH]
  Frees a claim. The reason is the first thing the next taker sees.`;

/** `controlroom pass-back TASK --reason`. */
export async function run(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('pass-back', argv, {reason: {type: 'string'}});
	if (values.help) return (out(usage), 0);
	const ref = positionals[0];
	if (ref === undefined || positionals.length > 1) throw new CliError('pass-back: expected one TASK', USAGE_EXIT);
	if (values.reason === undefined || values.reason.trim() === '') throw new CliError('pass-back: --reason: required', USAGE_EXIT);
	const ledger = openCommandLedger(values.ledger, {isReading: true});
	try {
		return reportRefusal(() => {
			const task = passBack({ledger, source: 'cli'}, ref, values.reason ?? '');
			out(`passed ${task.id} back; the contract is free to take`);
			return 0;
		});
	} finally {
		ledger.close();
	}
}
