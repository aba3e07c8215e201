import {toSnapshotTask} from '../../core/snapshot.ts';
import {storedTypeOf} from '../../core/events.ts';
import {terminalSafeJson} from '../../core/terminal-text.ts';
import {foldHeartbeats} from '../../core/timeline.ts';
import {parseCommandArgs, taskArgument} from '../args.ts';
import {openReadingLedger, out, resolveForCommand} from '../context.ts';
import {CliError} from '../errors.ts';
import type {CommandHelp} from '../help.ts';
import {printTimelineText} from '../print-timeline.ts';

export const help: CommandHelp = {
	synopsis: ['timeline TASK [--json]'],
	description: `Prints one task's timeline, event by event, heartbeats folded. TASK is an id, a unique id prefix,
or a session id. Opens a read-only ledger read-only.`,
	options: [['--json', 'timeline JSON version 1 (docs/snapshot.md)']],
	exits: [
		['0', 'printed'],
		['1', 'no such task, or TASK matches several (the message lists them), or the ledger cannot be read'],
		['64', 'bad command line (no TASK, an empty one), or no ledger at --ledger PATH'],
	],
	examples: [
		['controlroom timeline w-3f2c', 'the task whose id starts with w-3f2c'],
		['controlroom timeline 5f1e9c2a-session-id --json', 'a Claude Code session, as JSON'],
	],
};

/** `controlroom timeline TASK`. */
export async function run(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('timeline', argv, {json: {type: 'boolean'}});
	const ref = taskArgument('timeline', positionals);
	const ledger = openReadingLedger(values.ledger);
	try {
		const task = resolveForCommand('timeline', ledger, ref);
		if (!task) throw new CliError(`timeline: no task '${ref}' in ${ledger.path}`);
		const now = Date.now();
		const view = toSnapshotTask(task, now);
		const entries = foldHeartbeats(ledger.reader.eventsOf(task.id));
		if (values.json) {
			const jsonEntries = entries.map(entry =>
				entry.kind === 'heartbeats'
					? {
							kind: 'heartbeats',
							count: entry.count,
							from: new Date(entry.from).toISOString(),
							to: new Date(entry.to).toISOString(),
						}
					: {
							kind: 'event',
							seq: entry.event.seq,
							at: new Date(entry.event.at).toISOString(),
							type: storedTypeOf(entry.event),
							source: entry.event.source,
							data: entry.event.data,
						},
			);
			out(terminalSafeJson({version: 1, generatedAt: new Date(now).toISOString(), task: view, entries: jsonEntries}, 2));
		} else {
			out(printTimelineText(view, entries));
		}
		return 0;
	} finally {
		ledger.close();
	}
}
