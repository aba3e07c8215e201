import {DEFAULT_STATUS_FORMAT, formatStatus, statusJson} from '../../core/status-summary.ts';
import {terminalSafe} from '../../core/terminal-text.ts';
import {isApproverAlive} from '../../gates/effects/liveness.ts';
import {isFleetUrl} from '../../ledger/fleet/connection.ts';
import {writeStatusSummary} from '../../ledger/status-file.ts';
import {parseCommandArgs} from '../args.ts';
import {outJson, outText} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import {loadPriceTable} from '../price-file.ts';
import type {CommandHelp} from '../help.ts';
import {openReadingLedger} from '../reading-ledger.ts';

export const help: CommandHelp = {
	synopsis: ['status [--format FORMAT] [--json]'],
	description: `Prints one line for tmux's status line: how many entries need you, open decisions, running, stalled
and lost tasks, and what your local day's spend cost (\`~\` marks a price-table estimate). The
installed \`controlroom\` answers it from a shell, with no Node start, from the summary file the
board and the reconciler keep beside the ledger (every pass); the line says how old the summary is
once it is older than 30 s. Run through Node (no summary yet, or an option the shell does not know),
it reads the ledger, writes the summary and prints it. docs/tmux.md has the tmux snippet.`,
	options: [
		[
			'--format FORMAT',
			"the line, with {needs} {decisions} {running} {stalled} {lost} {cost} {age} {stale} filled in (default: all of them in words); {cost} is today's, as $1.23, ~$1.23 (an estimate), $1.23+ (some unpriced) or $— (unknown)",
		],
		[
			'--json',
			'the summary as JSON: {v, at, ageSeconds, needs, decisions, running, stalled, lost, costToday, costTodayIsEstimated, costTodayIsPartial}',
		],
	],
	exits: [
		['0', 'printed'],
		['1', 'the ledger cannot be read'],
		['64', 'bad command line, a fleet ledger, or no ledger at --ledger PATH'],
		['78', 'the price file is wrong (docs/tree-and-cost.md)'],
	],
	examples: [
		['controlroom status', 'needs you 2 · decisions 1 · running 3 · stalled 0 · lost 0 · today ~$1.23'],
		["controlroom status --format '#[fg=red]{needs}!#[default] {running}▶'", 'a compact line with tmux colours'],
	],
};

/** `controlroom status`: the summary, fresh from the ledger, and written for the shell entry's next call. */
export async function run(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('status', argv, {format: {type: 'string'}, json: {type: 'boolean'}});
	if (positionals.length > 0) throw new CliError(`status: unexpected argument '${positionals[0]}'`, USAGE_EXIT);
	if (isFleetUrl(values.ledger)) throw new CliError('status: summarises the local ledger (each host keeps its own)', USAGE_EXIT);
	const prices = loadPriceTable();
	const ledger = openReadingLedger(values.ledger, 'existing');
	try {
		const summary = writeStatusSummary(ledger.reader, ledger.path, {isApproverAlive, prices});
		if (values.json) outJson(statusJson(summary, 0));
		else outText(terminalSafe(formatStatus(summary, values.format ?? DEFAULT_STATUS_FORMAT, 0)));
		return 0;
	} finally {
		ledger.close();
	}
}
