import type {RejectRow} from '../../ledger/reader.ts';
import {parseCommandArgs, positiveInt} from '../args.ts';
import {out} from '../context.ts';
import {openReadingLedger} from '../reading-ledger.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import type {CommandHelp} from '../help.ts';

export const help: CommandHelp = {
	synopsis: ['rejects [--limit N] [--json]'],
	description: `Lists what the ledger refused to take, newest first: lines of ingest and the spool fold, hook
input, agent output the wrapper could not read, refused contracts and evidence. Each with where it
came from (origin and line number) and why (the field that failed). Text output never prints the
rejected input itself; --json includes its first 64 KiB as raw.`,
	options: [
		['--limit N', 'how many to list (default 20)'],
		['--json', '{version: 1, total, rejects: [{id, at, origin, line, reason, rawBytes, raw}]}'],
	],
	exits: [
		['0', 'listed (also when there are none)'],
		['1', 'the ledger cannot be read'],
		['64', 'bad command line, or no ledger at --ledger PATH'],
	],
	examples: [
		['controlroom rejects', 'the 20 newest rejects and why'],
		['controlroom rejects --json --limit 1000 > rejects.json', 'up to 1000, with the input kept'],
	],
};

const DEFAULT_LIMIT = 20;
const time = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').slice(0, 19);

function describe(reject: RejectRow): string {
	const where = reject.line === null ? reject.origin : `${reject.origin} line ${reject.line}`;
	const [first = '', ...rest] = reject.reason.split('\n');
	return [`#${reject.id}  ${time(reject.at)}  ${where}`, `    ${first}`, ...rest.map(line => `    ${line}`)].join('\n');
}

/** `controlroom rejects`: what was refused, where from and why. */
export async function run(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('rejects', argv, {limit: {type: 'string'}, json: {type: 'boolean'}});
	if (positionals.length > 0) throw new CliError(`rejects: unexpected argument '${positionals[0]}'`, USAGE_EXIT);
	const limit = positiveInt('limit', values.limit) ?? DEFAULT_LIMIT;
	const ledger = openReadingLedger(values.ledger);
	try {
		const total = ledger.reader.rejectCount();
		const rejects = ledger.reader.rejects(limit);
		if (values.json) return (out(JSON.stringify({version: 1, total, rejects}, null, 2)), 0);
		if (total === 0) return (out(`no rejects in ${ledger.path}`), 0);
		const shown = rejects.length < total ? ` (the ${rejects.length} newest; --limit N for more)` : '';
		out([`${total} reject${total === 1 ? '' : 's'} in ${ledger.path}${shown}`, ...rejects.map(describe)].join('\n'));
		return 0;
	} finally {
		ledger.close();
	}
}
