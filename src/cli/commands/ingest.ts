import {statSync} from 'node:fs';
import {resolve} from 'node:path';
import {ingestInput} from '../../ledger/ingest-file.ts';
import type {IngestStats} from '../../ledger/ingest-write.ts';
import {AGENT_SOURCES, type AgentSource} from '../../ledger/payload-schema.ts';
import {parseCommandArgs} from '../args.ts';
import {openCommandLedger, out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import type {CommandHelp} from '../help.ts';

export const help: CommandHelp = {
	synopsis: ['ingest [FILE|-] [--agent claude|codex] [--json]'],
	description: `Folds JSON lines into the ledger: hook payloads exactly as the agent sends them on stdin, or spool
envelopes ({"at": ISO-8601, "source": "claude", "payload": {...}}). Reads stdin when FILE is - or
absent. A line that fails validation is kept in the rejects table with its line number and reason,
and the rest still land; the first rejects are printed (all of them: controlroom rejects).
Re-ingesting the same file adds nothing twice.`,
	options: [
		['--agent claude|codex', 'whose raw payloads these are (guessed from each payload when absent)'],
		['--json', 'print the totals as JSON: lines, appended, rejected, rejectsAdded, skipped, firstRejects'],
	],
	exits: [
		['0', 'read (events added, or already there); rejected lines, if any, are listed'],
		['1', 'nothing landed: every line was rejected; or FILE cannot be read'],
		['64', 'bad command line, or a --ledger in a folder that does not exist'],
	],
	examples: [
		['controlroom ingest history.jsonl', 'imports a file of hook payloads'],
		['cat spool/*.jsonl | controlroom ingest - --agent codex --json', 'folds stdin, totals as JSON'],
	],
};

function rejectLines(stats: IngestStats): string[] {
	const lines = stats.firstRejects.map(reject => `  line ${reject.line}: ${reject.reason}`);
	const rest = stats.rejected - stats.firstRejects.length;
	if (rest > 0) lines.push(`  ... and ${rest} more (controlroom rejects lists them all)`);
	return lines;
}

/** `controlroom ingest`: bulk history import through the same path as the spool fold. */
export async function run(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('ingest', argv, {agent: {type: 'string'}, json: {type: 'boolean'}});
	if (positionals.length > 1) throw new CliError('ingest: takes one FILE (or - for stdin)', USAGE_EXIT);
	const agent = values.agent;
	if (agent !== undefined && !(AGENT_SOURCES as readonly string[]).includes(agent)) {
		throw new CliError(`--agent: expected claude or codex, got '${agent}'`, USAGE_EXIT);
	}
	const file = positionals[0] ?? '-';
	if (file !== '-') {
		try {
			if (!statSync(file).isFile()) throw new CliError(`ingest: ${resolve(file)} is not a file`);
		} catch (error) {
			if (error instanceof CliError) throw error;
			throw new CliError(`ingest: cannot read ${resolve(file)}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
		}
	}
	const ledger = openCommandLedger(values.ledger, {mode: 'create'});
	try {
		const stats = await ingestInput(ledger, file === '-' ? null : file, {
			origin: file === '-' ? 'ingest:-' : `ingest:${resolve(file)}`,
			now: Date.now(),
			...(agent ? {agent: agent as AgentSource} : {}),
		});
		if (values.json) out(JSON.stringify(stats));
		else {
			out(
				[`ingested ${stats.lines} lines: ${stats.appended} events added, ${stats.rejected} rejected`, ...rejectLines(stats)].join(
					'\n',
				),
			);
		}
		if (stats.lines > 0 && stats.rejected === stats.lines) {
			const what = file === '-' ? 'stdin' : resolve(file);
			throw new CliError(
				`ingest: nothing landed: all ${stats.lines} lines of ${what} were rejected (controlroom rejects shows why)`,
			);
		}
		return 0;
	} finally {
		ledger.close();
	}
}
