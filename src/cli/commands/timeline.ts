import {storedTypeOf, type LedgerEvent} from '../../core/events.ts';
import {toSnapshotTask, type SnapshotTask} from '../../core/snapshot.ts';
import {foldHeartbeats, type TimelineEntry} from '../../core/timeline.ts';
import {isFleetUrl} from '../../ledger/fleet/connection.ts';
import {hostName} from '../../ledger/host.ts';
import {parseCommandArgs} from '../args.ts';
import {openCommandLedger, out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import {withFleet} from '../fleet-context.ts';
import {printTimelineText} from '../print-timeline.ts';

export const usage = `controlroom timeline TASK [--json] [--ledger PATH | --ledger postgres://... [--host NAME]]
  Prints one task's timeline, heartbeats folded. TASK is an id, a unique id prefix, or a session id.
  On a fleet ledger, --host picks the host where several hosts have a matching task.`;

type Found = {readonly view: SnapshotTask; readonly events: readonly LedgerEvent[]; readonly now: number};

async function findOnFleet(url: string, ref: string, host: string | undefined): Promise<Found> {
	return withFleet(url, 'timeline', async fleet => {
		const task = await fleet.reader.resolveTask(ref, host);
		if (!task) throw new CliError(`timeline: no task '${ref}'${host ? ` on host ${host}` : ''} in the fleet at ${fleet.where}`);
		const now = Date.now();
		return {view: toSnapshotTask(task, now), events: await fleet.reader.eventsOf(task.hostId, task.id), now};
	});
}

function findLocally(ledgerFlag: string | undefined, ref: string): Found {
	const ledger = openCommandLedger(ledgerFlag, {isReading: true});
	try {
		const task = ledger.reader.resolveTask(ref);
		if (!task) throw new CliError(`timeline: no task '${ref}' in ${ledger.path}`);
		const now = Date.now();
		return {view: toSnapshotTask(task, now, undefined, hostName()), events: ledger.reader.eventsOf(task.id), now};
	} finally {
		ledger.close();
	}
}

function jsonEntries(entries: readonly TimelineEntry[]) {
	return entries.map(entry =>
		entry.kind === 'heartbeats'
			? {kind: 'heartbeats', count: entry.count, from: new Date(entry.from).toISOString(), to: new Date(entry.to).toISOString()}
			: {
					kind: 'event',
					seq: entry.event.seq,
					at: new Date(entry.event.at).toISOString(),
					type: storedTypeOf(entry.event),
					source: entry.event.source,
					data: entry.event.data,
				},
	);
}

/** `controlroom timeline TASK`. */
export async function run(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('timeline', argv, {json: {type: 'boolean'}, host: {type: 'string'}});
	if (values.help) return (out(usage), 0);
	const ref = positionals[0];
	if (ref === undefined || positionals.length > 1) throw new CliError('timeline: expected one TASK', USAGE_EXIT);
	const isFleet = isFleetUrl(values.ledger);
	if (values.host !== undefined && !isFleet)
		throw new CliError('timeline: --host applies to a fleet ledger (--ledger postgres://...)', USAGE_EXIT);
	const {view, events, now} = isFleet
		? await findOnFleet(values.ledger as string, ref, values.host)
		: findLocally(values.ledger, ref);
	const entries = foldHeartbeats(events);
	if (values.json) {
		out(
			JSON.stringify({version: 1, generatedAt: new Date(now).toISOString(), task: view, entries: jsonEntries(entries)}, null, 2),
		);
	} else {
		out(printTimelineText(view, entries));
	}
	return 0;
}
