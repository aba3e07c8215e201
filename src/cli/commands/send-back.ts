import {sendBack} from '../../gates/review/send-back.ts';
import {parseCommandArgs} from '../args.ts';
import {openCommandLedger, out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import {gateCall, personName, selfLauncher} from '../gate-call.ts';

export const usage = `controlroom send-back TASK --reason TEXT [--as NAME] [--json] [--ledger PATH]
  Sends work back with a reason: a task in the reviews lane or a failed task runs again through
  the wrapper, in the background, with the reason added to its brief (its output goes to a log
  file beside the ledger); a hand-in waiting for its acceptor is returned to the pool, the reason
  shown first to its next taker. The board's x does the same. Exit 0 sent back, 1 refused.`;

/** `controlroom send-back TASK --reason TEXT` (docs/review.md). */
export async function run(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('send-back', argv, {
		reason: {type: 'string'},
		as: {type: 'string'},
		json: {type: 'boolean'},
	});
	if (values.help) return (out(usage), 0);
	const ref = positionals[0];
	if (ref === undefined || positionals.length > 1) throw new CliError('send-back: expected one TASK', USAGE_EXIT);
	if (values.reason === undefined || values.reason.trim() === '') throw new CliError('send-back: --reason: required', USAGE_EXIT);
	const ledger = openCommandLedger(values.ledger, {isReading: true});
	try {
		const result = await gateCall(() =>
			sendBack({ledger, ref, reason: values.reason ?? '', by: personName(values.as), source: 'cli', launcher: selfLauncher()}),
		);
		if (values.json) out(JSON.stringify({version: 1, ...result}, null, 2));
		else out(result.logPath ? `${result.message} (log: ${result.logPath})` : result.message);
		return 0;
	} finally {
		ledger.close();
	}
}
