import {terminalSafe, terminalSafeJson} from '../../core/terminal-text.ts';
import {takeContract} from '../../handoff/claims.ts';
import {parseCommandArgs, positiveInt} from '../args.ts';
import {openCommandLedger, out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import {reportRefusal} from '../handoff-report.ts';
import type {CommandHelp} from '../help.ts';
import {workerIdentity} from '../worker-identity.ts';

export const help: CommandHelp = {
	synopsis: ['take FILE [--as NAME] [--lease MINUTES] [--json]'],
	description: `Claims a contract (checked first) for NAME: --as, else $CONTROLROOM_WORKER, else the contract's
execution.operator, else $USER. Exclusive: if someone holds it, says who and exits 1. A reason it
was passed back with is printed first. The claim is a task with a lease: silent longer, it shows
as stalled; controlroom progress renews it. The event records who took it.`,
	options: [
		['--as NAME', 'who takes it'],
		['--lease MINUTES', 'silence after which the claim shows as stalled (default 30)'],
		['--json', '{version: 1, taskId, holder, title, passedBack, checks, leaseSeconds}'],
	],
	exits: [
		['0', 'taken'],
		['1', 'refused: held by someone (named), already handed in, or the contract is invalid (its problems listed, one per line)'],
		[
			'64',
			'bad command line (no FILE, an empty --as, a bad --lease), or no ledger at --ledger PATH (only run and ingest create one)',
		],
	],
	examples: [
		['controlroom take task.yaml --as worker-1', 'worker-1 claims the contract in task.yaml'],
		['controlroom take task.yaml --lease 120 --json', 'a two-hour lease, the claim as JSON'],
	],
};

/** `controlroom take FILE`. */
export async function run(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('take', argv, {
		as: {type: 'string'},
		lease: {type: 'string'},
		json: {type: 'boolean'},
	});
	const file = positionals[0];
	if (file === undefined || positionals.length > 1) throw new CliError('take: expected one FILE', USAGE_EXIT);
	const identity = workerIdentity('take', values.as);
	const leaseMinutes = positiveInt('lease', values.lease);
	const ledger = openCommandLedger(values.ledger, {mode: 'existing'});
	try {
		return reportRefusal(() => {
			const taken = takeContract(
				{ledger, source: 'cli', identity},
				file,
				identity,
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
