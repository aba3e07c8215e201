import {terminalSafe} from '../../core/terminal-text.ts';
import {handIn} from '../../handoff/claims.ts';
import {tripwireRunner} from '../tripwire-run.ts';
import {parseCommandArgs, taskArgument} from '../args.ts';
import {openCommandLedger, out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import {reportRefusal} from '../handoff-report.ts';
import type {CommandHelp} from '../help.ts';
import {workerIdentity} from '../worker-identity.ts';

export const help: CommandHelp = {
	synopsis: ['hand-in TASK --evidence FILE [--as NAME]'],
	description: `Hands in a claim. Refused, one line per problem naming the field, unless every acceptance line
has an \`after\` entry that shows it done (a command with exit code 0, a test summary with none
failed, a commit, a pull request, or a screenshot, kept by its hash) and \`uncertainty\` is present.
The contract's tripwires are run again, and the files changed between its base revision and
review.commit are compared with its scope: outside it, a warning line (refused when the claim was
taken with --require scope). Accepted work waits for its acceptor in the human queue, or, when the
contract names nobody, until a person names one (docs/contracts.md). \`controlroom contract
template evidence\` writes an evidence file to fill in. A worker (--as NAME, or $CONTROLROOM_WORKER)
may hand in only a claim it holds.`,
	options: [
		['--evidence FILE', 'the evidence file, YAML or JSON (required)'],
		['--as NAME', 'who acts: refused unless NAME holds the claim'],
	],
	exits: [
		['0', 'handed in; waiting for its acceptor'],
		[
			'1',
			'refused: incomplete evidence (one line per problem), a tripwire tripped, the change left the scope (with the scope policy), no such claim, it has ended, or NAME does not hold it',
		],
		['64', 'bad command line (a TASK that matches several tasks, no TASK, no --evidence), or no ledger at --ledger PATH'],
	],
	examples: [
		['controlroom contract template evidence evidence.yaml', 'an evidence file to fill in'],
		['controlroom hand-in claim-3f2c1e0a9b1d-1 --evidence evidence.yaml', 'hands in the claim with it'],
	],
};

/** `controlroom hand-in TASK --evidence FILE`. */
export async function run(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('hand-in', argv, {evidence: {type: 'string'}, as: {type: 'string'}});
	const ref = taskArgument('hand-in', positionals);
	if (values.evidence === undefined || values.evidence.trim() === '')
		throw new CliError('hand-in: --evidence FILE: required', USAGE_EXIT);
	const identity = workerIdentity('hand-in', values.as);
	const ledger = openCommandLedger(values.ledger, {mode: 'existing'});
	try {
		return reportRefusal(() => {
			const result = handIn({ledger, source: 'cli', identity}, ref, values.evidence ?? '', {
				runTripwire: tripwireRunner(ledger.path),
			});
			const waiting = result.acceptor ?? 'a person to name its acceptor (controlroom contract ready FILE)';
			out(terminalSafe(`handed in ${result.taskId}; waiting for ${waiting}`));
			// What it was told but not refused for (files outside the scope): the person sees it too, on stderr.
			for (const problem of result.warnings)
				process.stderr.write(`${terminalSafe(`warning ${problem.field}: ${problem.message}`)}\n`);
			return 0;
		});
	} finally {
		ledger.close();
	}
}
