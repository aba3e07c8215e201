import {foldStats, type Stats} from '../../core/stats/measures.ts';
import {parseSince} from '../../core/stats/since.ts';
import {statsLines} from '../../core/stats/stats-text.ts';
import {terminalSafe, terminalSafeJson} from '../../core/terminal-text.ts';
import {isFleetUrl, redactUrl} from '../../ledger/fleet/connection.ts';
import {localReadPort} from '../../ledger/local-read-port.ts';
import {parseCommandArgs} from '../args.ts';
import {outJson, outText} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import {withFleet} from '../fleet-context.ts';
import type {CommandHelp} from '../help.ts';
import {openReadingLedger} from '../reading-ledger.ts';

export const help: CommandHelp = {
	synopsis: ['stats [--since DATE|DURATION] [--json]', 'stats ... --ledger postgres://...'],
	description: `Is the process working? Prints the measures of docs/stats.md: review verdicts (APPROVE, FIX, INVALID,
STOPPED), FIX per APPROVE and INVALID's share of the answers, a row a week (ISO weeks, in UTC);
how many entries Needs you held at most and how long it held more than five; handoffs taken and
how many came back for missing information (needs of kind missing_info); passes back per
contract. The board's stats panel and snapshot --json show the same figures. With --ledger
postgres://... they cover every host of the fleet.`,
	options: [
		[
			'--since DATE|DURATION',
			'from a date (2026-11-30, midnight UTC), a time with its zone (2026-11-30T09:00Z) or a duration back from now (7d, 36h, 2w); default: the whole ledger',
		],
		['--json', 'the figures as JSON (docs/stats.md, "Output"): the same object as snapshot --json `stats`'],
	],
	exits: [
		['0', 'printed'],
		['1', 'the ledger cannot be read (a fleet server out of reach)'],
		['64', 'bad command line (a --since that is no date, time or duration, or after now), or no ledger at --ledger PATH'],
	],
	examples: [
		['controlroom stats', 'every week the ledger holds'],
		['controlroom stats --since 3w', 'the last three weeks, the first of them in part'],
		['controlroom stats --since 2026-11-30 --json', 'from Monday 30 November, as JSON'],
	],
};

/** `controlroom stats [--since DATE|DURATION] [--json]`. */
export async function run(argv: readonly string[]): Promise<number> {
	const {values} = parseCommandArgs('stats', argv, {since: {type: 'string'}, json: {type: 'boolean'}});
	const now = Date.now();
	let since: number | null = null;
	if (values.since !== undefined) {
		const parsed = parseSince(values.since, now);
		if (typeof parsed === 'string') throw new CliError(`stats: --since '${terminalSafe(values.since)}': ${parsed}`, USAGE_EXIT);
		since = parsed;
	}
	const stats: Stats = isFleetUrl(values.ledger)
		? await withFleet(values.ledger, 'stats', async fleet => foldStats(await fleet.reader.statsEvents(), since, now))
		: readLocal(values.ledger, since, now);
	if (values.json) {
		outJson(terminalSafeJson(stats, 2));
		return 0;
	}
	const where = isFleetUrl(values.ledger) ? ` (fleet ${redactUrl(values.ledger)})` : '';
	const from = since === null ? 'the whole ledger' : `since ${new Date(since).toISOString().replace(/\.000Z$/, 'Z')}`;
	const lines = [`Is the process working? ${from}${where}; weeks in UTC`, '', ...statsLines(stats)];
	outText(lines.map(line => terminalSafe(line)).join('\n'));
	return 0;
}

function readLocal(ledgerFlag: string | undefined, since: number | null, now: number): Stats {
	const ledger = openReadingLedger(ledgerFlag);
	try {
		return foldStats(localReadPort(ledger.reader).statsEvents(), since, now);
	} finally {
		ledger.close();
	}
}
