import {terminalSafe, terminalSafeJson} from '../../core/terminal-text.ts';
import {listWork} from '../../handoff/claims.ts';
import {parseCommandArgs} from '../args.ts';
import {out} from '../context.ts';
import {openReadingLedger} from '../reading-ledger.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import type {CommandHelp} from '../help.ts';

export const help: CommandHelp = {
	synopsis: ['work [--json]'],
	description: `Lists the latest claim of every contract taken: held, stalled, handed in (waiting for its
acceptor), accepted, passed back or rejected (both free to take). The same list the MCP tool
list_work returns. Opens a read-only ledger read-only.`,
	options: [['--json', '{version: 1, items: [{taskId, title, contract, kind, holder, state, lastEventAt, endReason}]}']],
	exits: [
		['0', 'listed (also when there are no claims)'],
		['1', 'the ledger cannot be read'],
		['64', 'bad command line, or no ledger at --ledger PATH'],
	],
	examples: [['controlroom work', 'who holds what']],
};

/** `controlroom work`. */
export async function run(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('work', argv, {json: {type: 'boolean'}});
	if (positionals.length > 0) throw new CliError('work: takes no arguments', USAGE_EXIT);
	const ledger = openReadingLedger(values.ledger);
	try {
		const items = listWork(ledger, Date.now());
		if (values.json) return (out(terminalSafeJson({version: 1, items}, 2)), 0);
		if (items.length === 0) return (out('no claims yet'), 0);
		out(
			items
				.map(
					item =>
						`${terminalSafe(item.taskId)}  ${item.state.padEnd(11)}  ${terminalSafe(item.holder)}  ${terminalSafe(item.title ?? 'unknown')}  (${terminalSafe(item.contract ?? 'unknown')})`,
				)
				.join('\n'),
		);
		return 0;
	} finally {
		ledger.close();
	}
}
