import {createReadStream, statSync} from 'node:fs';
import {resolve} from 'node:path';
import {ingestStream} from '../../ledger/ingest-stream.ts';
import {AGENT_SOURCES, type AgentSource} from '../../ledger/payload-schema.ts';
import {parseCommandArgs} from '../args.ts';
import {openCommandLedger, out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';

export const usage = `controlroom ingest [FILE|-] [--agent claude|codex] [--json] [--ledger PATH]
  Folds JSON lines (hook payloads as the agent sends them, or spool envelopes) into the ledger.
  Bad lines go to rejects with their line number; the rest land. Re-ingesting adds nothing.`;

/** `controlroom ingest`: bulk history import through the same path as the spool fold. */
export async function run(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('ingest', argv, {agent: {type: 'string'}, json: {type: 'boolean'}});
	if (values.help) return (out(usage), 0);
	if (positionals.length > 1) throw new CliError('ingest: takes one FILE (or - for stdin)', USAGE_EXIT);
	const agent = values.agent;
	if (agent !== undefined && !(AGENT_SOURCES as readonly string[]).includes(agent)) {
		throw new CliError(`--agent: expected claude or codex, got '${agent}'`, USAGE_EXIT);
	}
	const file = positionals[0] ?? '-';
	if (file !== '-') {
		try {
			if (!statSync(file).isFile()) throw new CliError(`ingest: ${file} is not a file`);
		} catch (error) {
			if (error instanceof CliError) throw error;
			throw new CliError(`ingest: cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
		}
	}
	const ledger = openCommandLedger(values.ledger);
	try {
		const input = file === '-' ? process.stdin : createReadStream(file);
		const stats = await ingestStream(input, ledger, {
			origin: file === '-' ? 'ingest:-' : `ingest:${resolve(file)}`,
			now: Date.now(),
			...(agent ? {agent: agent as AgentSource} : {}),
		});
		if (values.json) out(JSON.stringify(stats));
		else out(`ingested ${stats.lines} lines: ${stats.appended} events added, ${stats.rejected} rejected`);
		return 0;
	} finally {
		ledger.close();
	}
}
