import {SpaceTooLargeError, type Transcript} from '../../core/mediation/engine.ts';
import {transcriptJson, transcriptText} from '../../core/mediation/print.ts';
import {mediateFiles} from '../../disagreements/mediate.ts';
import {PositionFileError} from '../../disagreements/position-file.ts';
import {recordMediation} from '../../disagreements/record-mediation.ts';
import {parseCommandArgs} from '../args.ts';
import {openCommandLedger, out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import type {CommandHelp} from '../help.ts';

export const help: CommandHelp = {
	synopsis: ['mediate POSITION.yaml POSITION.yaml... [--json] [--offers] [--no-record]'],
	description: `Settles a disagreement about what to want, deterministically: each file is one agent's private
position (utilities per item and option, weights, a floor, options it can never accept). The engine
runs alternating offers and asks each position only whether an offer reaches its floor, beats its
own standing offer, or holds an option it vetoes; no weight or floor is ever printed or recorded.
The mediation is recorded as a task (role mediator) whose timeline holds every offer; a walk-away
puts what could not be settled, and who vetoed what, in the queue's disagreements lane.
See docs/mediation.md.`,
	options: [
		['--offers', 'print every offer and answer (--json always holds them)'],
		['--json', 'the whole transcript as JSON (byte-identical for the same positions)'],
		['--no-record', 'only print: write nothing to the ledger'],
	],
	exits: [
		['0', 'agreement'],
		['2', "walk-away (nothing acceptable to every agent, vetoes included): an entry in the queue's disagreements lane"],
		['1', 'a position file that cannot be used (one line per problem, naming the file and the field)'],
		['64', 'bad command line (fewer than two POSITION files), or no ledger at --ledger PATH'],
	],
	examples: [
		['controlroom mediate planner-a.yaml planner-b.yaml --offers', 'mediate two planners, printing every offer'],
		['controlroom mediate a.yaml b.yaml --json --no-record', 'the transcript alone, nothing recorded'],
	],
};

/** `controlroom mediate`. */
export async function run(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('mediate', argv, {
		json: {type: 'boolean'},
		offers: {type: 'boolean'},
		'no-record': {type: 'boolean'},
	});
	if (positionals.length < 2) throw new CliError('mediate: expected at least two POSITION files', USAGE_EXIT);
	let transcript: Transcript;
	try {
		transcript = mediateFiles(positionals);
	} catch (error) {
		if (error instanceof SpaceTooLargeError) throw new CliError(`mediate: ${error.message}`);
		if (!(error instanceof PositionFileError)) throw error;
		// One line per problem, each naming the file and the field (never a value).
		for (const line of error.message.split('\n')) process.stderr.write(`controlroom: mediate: ${line}\n`);
		return 1;
	}
	const taskId = values['no-record'] ? null : record(transcript, values.ledger);
	if (values.json) {
		// The JSON is the transcript alone, byte-identical for the same positions; the task id goes to stderr.
		out(JSON.stringify(transcriptJson(transcript), null, 2));
		if (taskId) process.stderr.write(`controlroom: mediate: recorded as ${taskId}\n`);
	} else {
		out(transcriptText(transcript, values.offers ?? false));
		if (taskId) out(`recorded as ${taskId} (controlroom timeline ${taskId} shows every offer)`);
	}
	return transcript.outcome === 'agreement' ? 0 : 2;
}

function record(transcript: Transcript, ledgerFlag: string | undefined): string {
	const ledger = openCommandLedger(ledgerFlag, {mode: 'existing'});
	try {
		return recordMediation(ledger, transcript, {cwd: process.cwd(), now: Date.now()});
	} finally {
		ledger.close();
	}
}
