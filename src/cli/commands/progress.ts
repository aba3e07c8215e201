import {recordProgress} from '../../handoff/claims.ts';
import {boundedText, parseCommandArgs, taskArgument} from '../args.ts';
import {openCommandLedger, out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import {reportRefusal} from '../handoff-report.ts';
import type {CommandHelp} from '../help.ts';
import {workerIdentity} from '../worker-identity.ts';

export const help: CommandHelp = {
	synopsis: ['progress TASK "note" [--as NAME]'],
	description: `Records a note on a claim and renews its lease. A worker (--as NAME, or $CONTROLROOM_WORKER) may
note only a claim it holds; without one, a person at the terminal acts (recorded as $USER).`,
	options: [['--as NAME', 'who acts: refused unless NAME holds the claim']],
	exits: [
		['0', 'noted; the lease is renewed'],
		['1', 'refused: no such claim, it has ended, or NAME does not hold it (the holder is named)'],
		['64', 'bad command line (a TASK that matches several tasks, no TASK or note, an empty one), or no ledger at --ledger PATH'],
	],
	examples: [
		['controlroom progress claim-3f2c1e0a9b1d-1 "query rewritten; tests next" --as worker-1', 'a note that renews the lease'],
	],
};

/** `controlroom progress TASK "note"`. */
export async function run(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('progress', argv, {as: {type: 'string'}});
	const ref = taskArgument('progress', positionals, 1);
	const note = positionals[1];
	if (note === undefined || note.trim() === '') throw new CliError('progress: expected TASK and a "note"', USAGE_EXIT);
	boundedText('progress: NOTE', note);
	const identity = workerIdentity('progress', values.as);
	const ledger = openCommandLedger(values.ledger, {mode: 'existing'});
	try {
		return reportRefusal(() => {
			const task = recordProgress({ledger, source: 'cli', identity}, ref, note);
			out(`noted on ${task.id}; lease renewed`);
			return 0;
		});
	} finally {
		ledger.close();
	}
}
