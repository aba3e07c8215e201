import {raiseNeedByHand} from '../../gates/queue-actions.ts';
import {parseCommandArgs} from '../args.ts';
import {openCommandLedger, out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import {gateCall} from '../gate-call.ts';

export const usage = `controlroom need "TEXT" [--task TASK] [--ledger PATH]
  Puts a need in the queue's needs lane, on a task or on its own (it then gets an id, need-...,
  that ack takes). It stays until acknowledged (controlroom ack, or k on the board).`;

/** `controlroom need "TEXT" [--task TASK]`. */
export async function run(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('need', argv, {task: {type: 'string'}});
	if (values.help) return (out(usage), 0);
	if (positionals.length !== 1) throw new CliError('need: expected one TEXT (quote it)', USAGE_EXIT);
	const ledger = openCommandLedger(values.ledger);
	try {
		const {taskId} = await gateCall(() =>
			raiseNeedByHand(ledger, {message: positionals[0] ?? '', taskRef: values.task ?? null, source: 'cli'}),
		);
		out(`needs you: ${taskId}`);
		return 0;
	} finally {
		ledger.close();
	}
}
