import {auditRecord} from '../../core/audit.ts';
import {parseStoredEvent} from '../../core/events.ts';
import {terminalSafeJson} from '../../core/terminal-text.ts';
import {parseCommandArgs} from '../args.ts';
import {parseAt} from '../at-flag.ts';
import {openCommandLedger} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import type {CommandHelp} from '../help.ts';

export const help: CommandHelp = {
	synopsis: ['audit export [--since TIME|SEQ] [--format jsonl]'],
	description: `Prints every event of the ledger for a log store of your own, one JSON line each, oldest first:
its seq, the producer's time and when it arrived in the ledger, the producer, its type and task,
who wrote it (actor: person, agent, controlroom or unproven, with the proof: the person gate's
terminal rule, or the producer it came from, and a passkey field), its link in the hash chain, and
its data. Fields: docs/audit.md. Keep the export with an anchor (verify --anchor) to prove later
that it is the ledger as it was.`,
	options: [
		['--since TIME|SEQ', 'only events that arrived at or after TIME (an ISO time or a time ago, 90m), or from seq SEQ on'],
		['--format jsonl', 'one JSON object a line (the only format, and the default)'],
	],
	exits: [
		['0', 'exported'],
		['1', 'the ledger cannot be read'],
		['64', 'bad command line (an unknown verb or format, a bad --since), or no ledger at --ledger PATH'],
	],
	examples: [
		['controlroom audit export > audit.jsonl', 'the whole ledger'],
		['controlroom audit export --since 24h | ship-to-my-log-store', 'the last day'],
	],
};

/** Events read and written at a time: the export's memory is one chunk, not the ledger. */
const CHUNK = 2000;

/** `controlroom audit export`. */
export async function run(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('audit', argv, {since: {type: 'string'}, format: {type: 'string'}});
	const [verb, ...rest] = positionals;
	if (verb !== 'export') throw new CliError(`audit: expected 'audit export', got '${verb ?? ''}'`, USAGE_EXIT);
	if (rest.length > 0) throw new CliError(`audit: unexpected argument '${rest[0]}'`, USAGE_EXIT);
	if (values.format !== undefined && values.format !== 'jsonl')
		throw new CliError(`--format: expected jsonl, got '${values.format}'`, USAGE_EXIT);
	const since = parseAt(values.since);
	const ledger = openCommandLedger(values.ledger, {mode: 'read'});
	try {
		const {reader} = ledger;
		let after = since === undefined ? 0 : 'seq' in since ? since.seq - 1 : reader.seqArrivedBy(since.time - 1);
		for (;;) {
			const rows = reader.storedEventsSince(after, CHUNK);
			if (rows.length === 0) break;
			const lines = rows.map(row =>
				terminalSafeJson(auditRecord(parseStoredEvent(row), row.arrivedAt ?? null, row.hash ?? null)),
			);
			// Waits for a slow reader (a pipe to a log shipper) rather than holding the whole ledger in memory.
			if (!process.stdout.write(`${lines.join('\n')}\n`)) await new Promise(resolve => process.stdout.once('drain', resolve));
			after = rows.at(-1)?.seq ?? after;
		}
		return 0;
	} finally {
		ledger.close();
	}
}
