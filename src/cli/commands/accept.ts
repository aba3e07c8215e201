import {acceptHandIn} from '../../gates/queue-actions.ts';
import {parseCommandArgs} from '../args.ts';
import {openCommandLedger, out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import {gateCall, personName} from '../gate-call.ts';

export const usage = `controlroom accept TASK [--as NAME] [--note TEXT] [--ledger PATH]
  Accepts a hand-in that waits for its acceptor: it leaves the queue's waiting lane.
  Exit 0 accepted, 1 refused (not a waiting hand-in).`;

/** `controlroom accept TASK`. */
export async function run(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('accept', argv, {as: {type: 'string'}, note: {type: 'string'}});
	if (values.help) return (out(usage), 0);
	const ref = positionals[0];
	if (ref === undefined || positionals.length > 1) throw new CliError('accept: expected one TASK', USAGE_EXIT);
	const ledger = openCommandLedger(values.ledger, {isReading: true});
	try {
		const by = personName(values.as);
		const {taskId} = await gateCall(() => acceptHandIn(ledger, {ref, by, note: values.note ?? null, source: 'cli'}));
		out(`accepted ${taskId} (by ${by})`);
		return 0;
	} finally {
		ledger.close();
	}
}
