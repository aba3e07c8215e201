import {terminalSafe, terminalSafeJson} from '../../core/terminal-text.ts';
import {takeForWorker} from '../../gates/handover.ts';
import {takeContract, type TakeResult} from '../../handoff/claims.ts';
import {receiverPolicy} from '../contract-policy.ts';
import {nonEmptyAs} from '../person-name.ts';
import {tripwireRunner} from '../tripwire-run.ts';
import {parseCommandArgs, positiveInt} from '../args.ts';
import {openCommandLedger, out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import {reportRefusal} from '../handoff-report.ts';
import type {CommandHelp} from '../help.ts';
import {EXPECTED, settingFromText} from '../../core/settings.ts';
import {commandSettings} from '../config-file.ts';
import {workerIdentity} from '../worker-identity.ts';

export const help: CommandHelp = {
	synopsis: [
		'take FILE [--as NAME] [--lease MINUTES] [--time-limit DURATION] [--require LIST] [--json]',
		'take --for WORKER FILE [--as NAME]',
	],
	description: `Claims a contract (checked first, with the receiver's policy) for NAME: --as, else
$CONTROLROOM_WORKER, else the contract's execution.operator, else $USER. Its tripwires that name a
package.json script or a Makefile target are run first, each as a recorded task; one that fails
refuses the take. Exclusive: if someone holds it, says who and exits 1. A reason it was passed back
with is printed first. The claim is a task with a lease: silent longer, it shows as stalled;
controlroom progress renews it. The event records who took it.
--for WORKER: a person hands the contract to WORKER; when the contract names no acceptor, that
person accepts the work (--as names them). Only a person at a terminal (docs/security.md).`,
	options: [
		['--as NAME', 'who takes it (with --for: who hands it over)'],
		['--for WORKER', 'a person takes it for WORKER, and accepts it when the contract names nobody'],
		[
			'--require LIST',
			'what the receiver requires, comma-separated: state, authority, evidence, guardrails, trace (or trace:exception), escalation, execution, delivery, stop_when, scope (default: contractRequire in the config file)',
		],
		['--lease MINUTES', 'silence after which the claim shows as stalled (default 30)'],
		[
			'--time-limit DURATION',
			'how long the holder keeps it, progress or not, before it goes to Needs you: 90m, 8h (default: claimTimeLimit in the config file, 8h)',
		],
		[
			'--json',
			'{version: 1, taskId, holder, title, passedBack, checks, leaseSeconds, timeLimitSeconds, acceptors, tripwires, warnings, guesses}',
		],
	],
	exits: [
		['0', 'taken'],
		[
			'1',
			'refused: held by someone (named), already handed in, passed back more than passBackLimit times (it waits in Needs you for a person: take --for), a tripwire tripped, or the contract is invalid (its problems listed, one per line)',
		],
		[
			'64',
			'bad command line (no FILE, an empty --as, a bad --lease, --time-limit or --require), or no ledger at --ledger PATH (only run and ingest create one)',
		],
		['77', '--for: asked by an agent, not a person (recorded)'],
	],
	examples: [
		['controlroom take task.yaml --as worker-1', 'worker-1 claims the contract in task.yaml'],
		['controlroom take task.yaml --lease 120 --json', 'a two-hour lease, the claim as JSON'],
		['controlroom take --for worker-1 task.md', 'hand task.md to worker-1; you accept its work'],
	],
};

/** What a take says: the pass-back reason first, who took it, who accepts, the lines, the tripwires run, the warnings. */
function takeText(taken: TakeResult): string {
	const lines = taken.passedBack ? [`passed back by ${taken.passedBack.by}: ${taken.passedBack.reason}`] : [];
	lines.push(`${taken.holder} took "${taken.title}" as ${taken.taskId}`);
	lines.push(...taken.checks.map((check, index) => `  acceptance ${index + 1}: ${check}`));
	lines.push(
		taken.acceptors.length > 0
			? `  accepted by: ${taken.acceptors.join(', ')}`
			: '  accepted by: nobody named yet (a person names one with controlroom contract ready FILE; the hand-in waits until then)',
	);
	lines.push(...taken.tripwires.map(run => `  tripwire ${run.tripwire}: passed (task ${run.taskId ?? '?'})`));
	lines.push(...taken.warnings.map(problem => `warning ${problem.field}: ${problem.message}`));
	lines.push(...taken.guesses.map(guess => `check first ${guess.field}: ${guess.text}`));
	return lines.map(terminalSafe).join('\n');
}

/** `controlroom take FILE`, `controlroom take --for WORKER FILE`. */
export async function run(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('take', argv, {
		as: {type: 'string'},
		for: {type: 'string'},
		lease: {type: 'string'},
		'time-limit': {type: 'string'},
		require: {type: 'string'},
		json: {type: 'boolean'},
	});
	const file = positionals[0];
	if (file === undefined || positionals.length > 1) throw new CliError('take: expected one FILE', USAGE_EXIT);
	if (values.for !== undefined && values.for.trim() === '')
		throw new CliError("take: --for: expected a worker's name", USAGE_EXIT);
	const leaseMinutes = positiveInt('lease', values.lease);
	const leaseSeconds = leaseMinutes === undefined ? undefined : leaseMinutes * 60;
	const policy = receiverPolicy(values.require);
	const limitFlag = values['time-limit'];
	const limitMs = limitFlag === undefined ? undefined : settingFromText('duration', limitFlag);
	if (limitMs === null)
		throw new CliError(`take: --time-limit: expected ${EXPECTED.duration}, got '${limitFlag ?? ''}'`, USAGE_EXIT);
	const {passBackLimit, claimTimeLimit} = commandSettings({passBackLimit: undefined, claimTimeLimit: limitMs});
	const timeLimitSeconds = claimTimeLimit / 1000;
	const ledger = openCommandLedger(values.ledger, {mode: 'existing'});
	try {
		return reportRefusal(() => {
			const runTripwire = tripwireRunner(ledger.path);
			const taken =
				values.for !== undefined
					? takeForWorker(ledger, {
							file,
							worker: values.for.trim(),
							as: nonEmptyAs('take', values.as) ?? null,
							leaseSeconds,
							timeLimitSeconds,
							policy,
							runTripwire,
							source: 'cli',
						})
					: (() => {
							const identity = workerIdentity('take', values.as);
							return takeContract({ledger, source: 'cli', identity}, file, identity, leaseSeconds, {
								policy,
								runTripwire,
								passBackLimit,
								timeLimitSeconds,
							});
						})();
			out(values.json ? terminalSafeJson({version: 1, ...taken}, 2) : takeText(taken));
			return 0;
		});
	} finally {
		ledger.close();
	}
}
