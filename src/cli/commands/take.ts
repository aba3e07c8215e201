import {terminalSafe, terminalSafeJson} from '../../core/terminal-text.ts';
import {takeContract} from '../../handoff/claims.ts';
import {parseCommandArgs, positiveInt} from '../args.ts';
import {openCommandLedger, out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import {reportRefusal} from '../handoff-report.ts';

export const usage = `controlroom take FILE [--as NAME] [--lease MINUTES] [--json] [--ledger PATH]
  Claims a contract for NAME (default: $CONTROLROOM_WORKER, else the contract's execution.operator,
  else $USER). Exclusive: if someone holds it, says who and exits 1. A reason it was passed back
  with is printed first.
  The claim is a task with a lease (default 30 minutes): silent longer, it shows as stalled;
  \`controlroom progress\` renews it.`;

/** `controlroom take FILE`. */
export async function run(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('take', argv, {
		as: {type: 'string'},
		lease: {type: 'string'},
		json: {type: 'boolean'},
	});
	if (values.help) return (out(usage), 0);
	const file = positionals[0];
	if (file === undefined || positionals.length > 1) throw new CliError('take: expected one FILE', USAGE_EXIT);
	if (values.as !== undefined && values.as.trim() === '') throw new CliError('take: --as: expected a name', USAGE_EXIT);
	const leaseMinutes = positiveInt('lease', values.lease);
	const ledger = openCommandLedger(values.ledger);
	try {
		return reportRefusal(() => {
			const taken = takeContract(
				{ledger, source: 'cli'},
				file,
				values.as ?? process.env['CONTROLROOM_WORKER'] ?? null,
				leaseMinutes === undefined ? undefined : leaseMinutes * 60,
			);
			if (values.json) return (out(terminalSafeJson({version: 1, ...taken}, 2)), 0);
			const lines = taken.passedBack ? [`passed back by ${taken.passedBack.by}: ${taken.passedBack.reason}`] : [];
			lines.push(`${taken.holder} took "${taken.title}" as ${taken.taskId}`);
			lines.push(...taken.checks.map((check, index) => `  acceptance ${index + 1}: ${check}`));
			out(lines.map(terminalSafe).join('\n'));
			return 0;
		});
	} finally {
		ledger.close();
	}
}
