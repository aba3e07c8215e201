import {SpaceTooLargeError, type Transcript} from '../../core/mediation/engine.ts';
import {transcriptJson, transcriptText} from '../../core/mediation/print.ts';
import {mediateFiles} from '../../disagreements/mediate.ts';
import {PositionFileError} from '../../disagreements/position-file.ts';
import {recordMediation} from '../../disagreements/record-mediation.ts';
import {parseCommandArgs} from '../args.ts';
import {openCommandLedger, out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';

export const usage = `controlroom mediate POSITION.yaml POSITION.yaml... [--json] [--offers] [--no-record] [--ledger PATH]
  Settles a disagreement about what to want, deterministically: each file is one agent's private
  position (utilities per item and option, weights, a floor, options it can never accept). The
  engine runs alternating offers and asks each position only whether an offer reaches its floor,
  beats its own standing offer, or holds an option it vetoes; no weight or floor is ever printed
  or recorded. --offers prints every offer and answer (--json always holds them).
  The mediation is recorded in the ledger as a task (role mediator) whose timeline holds every
  offer; a walk-away puts what could not be settled, and who vetoed what, in the queue's
  disagreements lane. --no-record only prints. See docs/mediation.md.
  Exit 0 agreement, 2 walk-away, 1 error (a position file that cannot be used), 64 bad usage.
  Example: controlroom mediate planner-a.yaml planner-b.yaml --offers`;

/** `controlroom mediate`. */
export async function run(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('mediate', argv, {
		json: {type: 'boolean'},
		offers: {type: 'boolean'},
		'no-record': {type: 'boolean'},
	});
	if (values.help) return (out(usage), 0);
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
	const ledger = openCommandLedger(ledgerFlag);
	try {
		return recordMediation(ledger, transcript, {cwd: process.cwd(), now: Date.now()});
	} finally {
		ledger.close();
	}
}
