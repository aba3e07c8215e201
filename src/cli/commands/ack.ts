import {acknowledgeEntry} from '../../gates/queue-actions.ts';
import {parseCommandArgs} from '../args.ts';
import {openCommandLedger, out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import {gateCall} from '../gate-call.ts';

export const usage = `controlroom ack TASK [--ledger PATH]
  Acknowledges TASK's entry in the human queue (as k on the board): it leaves the queue until a
  newer signal comes for that task. TASK is a queue entry's id or a unique prefix of one.
  Exit 0 acknowledged, 1 nothing in the queue for TASK.`;

/** `controlroom ack TASK`. */
export async function run(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('ack', argv, {});
	if (values.help) return (out(usage), 0);
	const ref = positionals[0];
	if (ref === undefined || positionals.length > 1) throw new CliError('ack: expected one TASK', USAGE_EXIT);
	const ledger = openCommandLedger(values.ledger, {isReading: true});
	try {
		const entry = await gateCall(() => acknowledgeEntry(ledger, ref, 'cli'));
		out(`acknowledged ${entry.taskId} (${entry.lane}: ${entry.reason})`);
		return 0;
	} finally {
		ledger.close();
	}
}
