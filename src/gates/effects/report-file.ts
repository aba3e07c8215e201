import {resolve} from 'node:path';
import {parse as parseYaml} from 'yaml';
import {listedEffects, type ListedEffect} from '../../core/effects/reconcile.ts';
import {AgentFileError, readAgentText} from '../../ledger/agent-files.ts';

/** The largest report read (docs/effects.md, "Limits"): the worker writes it, so it is bounded. */
export const MAX_REPORT_BYTES = 4 * 1024 * 1024;

/** A report that cannot be read as one: the message names the file and the problem. */
export class ReportFileError extends Error {}

/**
 * The effects a worker's report lists: a YAML or JSON file (or Markdown with YAML front matter)
 * with an `effects` list of placeholders (`pending:fs/write_file#3`) or `{effect, tool, args}`.
 */
export function readReportFile(path: string): {path: string; listed: ListedEffect[]} {
	const file = resolve(path);
	let text: string;
	try {
		text = readAgentText(file, MAX_REPORT_BYTES);
	} catch (error) {
		if (error instanceof AgentFileError) throw new ReportFileError(`report ${error.message}`);
		throw error;
	}
	const front = text.match(/^---\r?\n([\s\S]*?)\r?\n---\r?\n?/);
	let document: unknown;
	try {
		document = parseYaml(front?.[1] ?? text, {prettyErrors: false});
	} catch (error) {
		throw new ReportFileError(`report ${file}: not YAML: ${(error as Error).message.split('\n')[0]}`);
	}
	const listed = listedEffects(document);
	if (listed === null)
		throw new ReportFileError(`report ${file}: no \`effects\` list (the placeholders the gateway answered with)`);
	return {path: file, listed};
}
