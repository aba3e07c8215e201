import {describeTrackRecord, trackRecords} from '../../core/effects/track-record.ts';
import {isApproverAlive} from '../../gates/effects/liveness.ts';
import {readOrders} from '../../ledger/orders.ts';
import {parseCommandArgs} from '../args.ts';
import {openCommandLedger, out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';

export const usage = `controlroom workers [--json]
  Each worker's track record over its work orders: approved first time, sent back (rework), failed
  (an error or outcome unknown), expired, calls against budget, tokens its tasks reported
  (unknown when none reported).`;

/** `controlroom workers`. */
export async function run(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('workers', argv, {json: {type: 'boolean'}});
	if (values.help) return (out(usage), 0);
	if (positionals.length > 0) throw new CliError('workers: takes no arguments', USAGE_EXIT);
	const ledger = openCommandLedger(values.ledger, {isReading: true});
	try {
		const now = Date.now();
		const records = trackRecords(
			readOrders(ledger.reader).values(),
			task => ledger.reader.task(task)?.tokens,
			now,
			isApproverAlive,
		);
		if (values.json) out(JSON.stringify({version: 1, generatedAt: new Date(now).toISOString(), workers: records}, null, 2));
		else
			out(
				records.length === 0
					? 'no work orders yet'
					: records.map(record => `${record.worker}  ${describeTrackRecord(record)}`).join('\n'),
			);
		return 0;
	} finally {
		ledger.close();
	}
}
