import {handIn} from '../../handoff/claims.ts';
import {parseCommandArgs} from '../args.ts';
import {openCommandLedger, out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import {reportRefusal} from '../handoff-report.ts';

export const usage = `controlroom hand-in TASK --evidence FILE [--ledger PATH]
  Hands in a claim. Refused (exit 1, one line per problem) unless every acceptance line has an
  \`after\` entry with exit code 0 and \`uncertainty\` is present; accepted work waits for its
  acceptor in the human queue (docs/contracts.md).`;

/** `controlroom hand-in TASK --evidence FILE`. */
export async function run(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('hand-in', argv, {evidence: {type: 'string'}});
	if (values.help) return (out(usage), 0);
	const ref = positionals[0];
	if (ref === undefined || positionals.length > 1) throw new CliError('hand-in: expected one TASK', USAGE_EXIT);
	if (values.evidence === undefined) throw new CliError('hand-in: --evidence: required', USAGE_EXIT);
	const ledger = openCommandLedger(values.ledger, {isReading: true});
	try {
		return reportRefusal(() => {
			const result = handIn({ledger, source: 'cli'}, ref, values.evidence ?? '');
			out(`handed in ${result.taskId}; waiting for ${result.acceptor}`);
			return 0;
		});
	} finally {
		ledger.close();
	}
}
