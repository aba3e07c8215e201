import {describeTrackRecord, trackRecords} from '../../core/effects/track-record.ts';
import {isApproverAlive} from '../../gates/effects/liveness.ts';
import {readOrders} from '../../ledger/orders.ts';
import {terminalSafe, terminalSafeJson} from '../../core/terminal-text.ts';
import {parseCommandArgs} from '../args.ts';
import {openCommandLedger, out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import type {CommandHelp} from '../help.ts';

export const help: CommandHelp = {
	synopsis: ['workers [--json]'],
	description: `Each worker's track record over its work orders: approved first time, sent back (rework), failed
(an error or outcome unknown), expired, calls against budget, tokens its tasks reported (unknown
when none reported).`,
	options: [['--json', '{version: 1, generatedAt, workers: [...]}']],
	exits: [
		['0', 'listed (also when there are none)'],
		['1', 'the ledger cannot be read'],
		['64', 'bad command line, or no ledger at --ledger PATH'],
	],
	examples: [['controlroom workers', 'who gets approved first time, who gets sent back']],
};

/** `controlroom workers`. */
export async function run(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('workers', argv, {json: {type: 'boolean'}});
	if (positionals.length > 0) throw new CliError('workers: takes no arguments', USAGE_EXIT);
	const ledger = openCommandLedger(values.ledger, {mode: 'read'});
	try {
		const now = Date.now();
		const records = trackRecords(
			readOrders(ledger.reader).values(),
			task => ledger.reader.task(task)?.tokens,
			now,
			isApproverAlive,
		);
		if (values.json) out(terminalSafeJson({version: 1, generatedAt: new Date(now).toISOString(), workers: records}, 2));
		else
			out(
				records.length === 0
					? 'no work orders yet'
					: records.map(record => terminalSafe(`${record.worker}  ${describeTrackRecord(record)}`)).join('\n'),
			);
		return 0;
	} finally {
		ledger.close();
	}
}
