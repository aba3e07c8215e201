import {toSnapshotTask} from '../../core/snapshot.ts';
import {storedTypeOf} from '../../core/events.ts';
import {terminalSafeJson} from '../../core/terminal-text.ts';
import {foldHeartbeats} from '../../core/timeline.ts';
import {parseCommandArgs} from '../args.ts';
import {openCommandLedger, out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import {printTimelineText} from '../print-timeline.ts';

export const usage = `controlroom timeline TASK [--json] [--ledger PATH]
  Prints one task's timeline, heartbeats folded. TASK is an id, a unique id prefix, or a session id.`;

/** `controlroom timeline TASK`. */
export async function run(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('timeline', argv, {json: {type: 'boolean'}});
	if (values.help) return (out(usage), 0);
	const ref = positionals[0];
	if (ref === undefined || positionals.length > 1) throw new CliError('timeline: expected one TASK', USAGE_EXIT);
	const ledger = openCommandLedger(values.ledger, {isReading: true});
	try {
		const task = ledger.reader.resolveTask(ref);
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
