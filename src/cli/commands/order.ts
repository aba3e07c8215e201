import {writeFileSync} from 'node:fs';
import {isAbsolute, resolve} from 'node:path';
import {stringify} from 'yaml';
import {deriveOrder, workOrderDocument} from '../../core/effects/order.ts';
import {EventType} from '../../core/events.ts';
import {loadOrderFile, OrderFileError} from '../../gates/effects/order-file.ts';
import {orderEvent} from '../../gates/effects/record.ts';
import {parseCommandArgs, positiveInt} from '../args.ts';
import {openCommandLedger, out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import type {CommandHelp} from '../help.ts';
import {outputFile} from '../output-path.ts';

export const help: CommandHelp = {
	synopsis: ['order derive ORDER_FILE --worker NAME [--id ID] [--calls N] [--out FILE]'],
	description: `Writes a work order for a sub-agent, derived from a worker's: the same upstreams without any
staged tool (a gateway serving it refuses every tool the parent stages), a budget no larger
(--calls), id ID (default PARENT.NAME). Prints the YAML, or writes it to FILE. Records the
derivation on the parent order in the ledger; a gateway refuses a derived order the ledger lacks.`,
	options: [
		['--worker NAME', 'who the sub-agent is; required'],
		['--id ID', 'the derived order id (default PARENT.NAME)'],
		['--calls N', "its call budget, at most the parent's"],
		['--out FILE', 'write the YAML to FILE instead of stdout'],
	],
	exits: [
		['0', 'derived'],
		['1', 'the order file is invalid or cannot be read, or nothing would be left to derive'],
		['64', 'bad command line, no ledger at --ledger PATH (only run and ingest create one), or no folder for --out FILE'],
	],
	examples: [['controlroom order derive o-42.yaml --worker sub-1 --out o-42.sub-1.yaml', "a sub-agent's order: reads only"]],
};

/** `controlroom order derive`. */
export async function run(argv: readonly string[]): Promise<number> {
	const [verb, ...rest] = argv;
	if (verb !== 'derive') throw new CliError(`order: expected the verb derive, got '${verb ?? ''}'`, USAGE_EXIT);
	const {values, positionals} = parseCommandArgs('order derive', rest, {
		worker: {type: 'string'},
		id: {type: 'string'},
		calls: {type: 'string'},
		out: {type: 'string'},
	});
	const [file, ...extra] = positionals;
	if (file === undefined || extra.length > 0) throw new CliError('order derive: expected one ORDER_FILE', USAGE_EXIT);
	const worker = values.worker?.trim();
	if (!worker) throw new CliError('order derive: --worker NAME is required (who the sub-agent is)', USAGE_EXIT);
	let loaded;
	try {
		loaded = loadOrderFile(file);
	} catch (error) {
		if (error instanceof OrderFileError) throw new CliError(error.message);
		throw error;
	}
	const parent = loaded.order;
	const calls = positiveInt('calls', values.calls);
	const derived = deriveOrder(
		{
			...parent,
			// The derived file may live elsewhere: its upstreams keep running where the parent's do.
			upstreams: parent.upstreams.map(upstream => ({
				...upstream,
				cwd: upstream.cwd === null ? loaded.dir : isAbsolute(upstream.cwd) ? upstream.cwd : resolve(loaded.dir, upstream.cwd),
			})),
		},
		{id: values.id ?? `${parent.id}.${worker}`, worker, ...(calls === undefined ? {} : {calls})},
	);
	if ('problem' in derived) throw new CliError(`order derive: ${derived.problem}`, USAGE_EXIT);
	// An upstream whose staged tools the parent left to inference (no `staged:` list) keeps its whole
	// `allow` here: which of those tools write is only known from the server's annotations, which the
	// gateway reads when it starts, hiding and refusing them for a derived order. Say so in the file.
	const inferred = parent.upstreams.filter(upstream => upstream.staged === null).map(upstream => upstream.name);
	const inferredNote =
		inferred.length === 0
			? ''
			: `# ${inferred.join(', ')}: staged by inference in ${parent.id}; the gateway hides and refuses every tool not annotated readOnlyHint: true.\n`;
	const yaml = `# Derived from ${parent.id} (${loaded.file}) for ${worker}: no staged tools.\n${inferredNote}${stringify(workOrderDocument(derived))}`;
	// Refused before the ledger records a derivation into a file that could not be written.
	const target = values.out === undefined ? null : outputFile('order derive: --out', values.out);
	const ledger = openCommandLedger(values.ledger, {mode: 'existing'});
	try {
		const staged = parent.upstreams.flatMap(upstream => (upstream.staged ?? []).map(tool => `${upstream.name}/${tool}`));
		ledger.writer.append([
			orderEvent(EventType.orderDerived, {child: derived.id, worker, file: target, staged}, parent.id, 'cli'),
		]);
		if (target === null) out(yaml);
		else {
			writeFileSync(target, yaml);
			out(`wrote ${derived.id} for ${worker} to ${target}`);
		}
		return 0;
	} finally {
		ledger.close();
	}
}
