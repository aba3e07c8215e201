import {familyLines, familyNames, type FamilyNames} from '../../core/family.ts';
import {storedTypeOf, type LedgerEvent} from '../../core/events.ts';
import {toSnapshotTask, type SnapshotTask} from '../../core/snapshot.ts';
import {foldHeartbeats, type TimelineEntry} from '../../core/timeline.ts';
import {isFleetUrl} from '../../ledger/fleet/connection.ts';
import {hostName} from '../../ledger/host.ts';
import {terminalSafe, terminalSafeJson} from '../../core/terminal-text.ts';
import {parseCommandArgs, positiveInt, taskArgument} from '../args.ts';
import {commandSettings} from '../config-file.ts';
import {outJson, outText, resolveForCommand} from '../context.ts';
import {openReadingLedger} from '../reading-ledger.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import {withFleet} from '../fleet-context.ts';
import type {CommandHelp} from '../help.ts';
import {printTimelineText} from '../print-timeline.ts';
import {AT_HELP, fleetTime, momentOf, parseAt, type AtFlag} from '../at-flag.ts';
import {readerAsOf} from '../../ledger/reader-as-of.ts';

export const help: CommandHelp = {
	synopsis: [
		'timeline TASK [--json] [--stall SECONDS] [--at TIME|SEQ]',
		'timeline TASK [--json] --ledger postgres://... [--host NAME] [--at TIME]',
	],
	description: `Prints one task's timeline, event by event, heartbeats folded. TASK is an id, a unique id prefix,
a session id, or a task's title or its start. Opens a read-only ledger read-only. On a fleet ledger (--ledger postgres://...,
docs/fleet.md) it prints the task as its host recorded it.`,
	options: [
		AT_HELP,
		['--json', 'timeline JSON version 1 (docs/snapshot.md)'],
		['--host NAME', 'on a fleet ledger: the host whose task to show, where several hosts have a matching one'],
		[
			'--stall SECONDS',
			"the agent's silence after which a running task is stalled, for the header's health (default 600, or CONTROLROOM_STALL_SECONDS, or the config file's stallSeconds)",
		],
	],
	exits: [
		['0', 'printed'],
		['1', 'no such task, or the ledger cannot be read (a fleet server out of reach)'],
		[
			'64',
			'bad command line (no TASK, an empty one, one that matches several tasks (the line lists them), --host without a fleet ledger, a bad --stall), or no ledger at --ledger PATH',
		],
		['78', 'the config file or CONTROLROOM_STALL_SECONDS is wrong (docs/config.md)'],
	],
	examples: [
		['controlroom timeline w-3f2c', 'the task whose id starts with w-3f2c'],
		['controlroom timeline 5f1e9c2a-session-id --json', 'a Claude Code session, as JSON'],
		['controlroom timeline w-3f2c --ledger postgres://fleet.example/db --host build-2', "build-2's task w-3f2c, from the fleet"],
	],
};

type Found = {
	readonly view: SnapshotTask;
	readonly events: readonly LedgerEvent[];
	readonly now: number;
	/** The parent and helpers, where the ledger holds them (a local ledger). */
	readonly family?: FamilyNames;
};

async function findOnFleet(
	url: string,
	ref: string,
	host: string | undefined,
	stallSeconds: number,
	at: AtFlag | undefined,
): Promise<Found> {
	const time = at === undefined ? undefined : fleetTime(at);
	return withFleet(url, 'timeline', async fleet => {
		const task = await fleet.reader.resolveTask(ref, host);
		if (!task) throw new CliError(`timeline: no task '${ref}'${host ? ` on host ${host}` : ''} in the fleet at ${fleet.where}`);
		if (time !== undefined) {
			const then = await fleet.reader.taskAt(task.hostId, task.id, time);
			if (!then) throw new CliError(`timeline: task '${ref}' was not in the fleet yet at ${new Date(time).toISOString()}`);
			return {view: toSnapshotTask(then.task, time, stallSeconds), events: then.events, now: time};
		}
		const now = Date.now();
		return {view: toSnapshotTask(task, now, stallSeconds), events: await fleet.reader.eventsOf(task.hostId, task.id), now};
	});
}

function findLocally(ledgerFlag: string | undefined, ref: string, stallSeconds: number, at: AtFlag | undefined): Found {
	const ledger = openReadingLedger(ledgerFlag);
	try {
		const moment = at === undefined ? null : momentOf(ledger.reader, at);
		const reader = moment === null ? ledger.reader : readerAsOf(ledger.reader, moment);
		const found = resolveForCommand('timeline', ledger, ref);
		const task = found === undefined ? undefined : reader.task(found.id);
		if (!task)
			throw new CliError(
				found && moment
					? `timeline: task '${ref}' was not in ${ledger.path} yet at seq ${moment.seq}`
					: `timeline: no task '${ref}' in ${ledger.path}`,
			);
		const now = moment?.now ?? Date.now();
		const parent = task.parentId === null ? null : (reader.task(task.parentId) ?? null);
		const family = familyNames(task, parent, reader.helpersOf(task.id));
		return {view: toSnapshotTask(task, now, stallSeconds, hostName()), events: reader.eventsOf(task.id), now, family};
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
	const {values, positionals} = parseCommandArgs('timeline', argv, {
		json: {type: 'boolean'},
		host: {type: 'string'},
		stall: {type: 'string'},
		at: {type: 'string'},
	});
	const ref = taskArgument('timeline', positionals);
	const at = parseAt(values.at);
	const {stallSeconds} = commandSettings({stallSeconds: positiveInt('stall', values.stall)});
	const isFleet = isFleetUrl(values.ledger);
	if (values.host !== undefined && !isFleet)
		throw new CliError('timeline: --host applies to a fleet ledger (--ledger postgres://...)', USAGE_EXIT);
	const {view, events, now, family} = isFleet
		? await findOnFleet(values.ledger as string, ref, values.host, stallSeconds, at)
		: findLocally(values.ledger, ref, stallSeconds, at);
	const entries = foldHeartbeats(events);
	if (values.json) {
		const tree = family === undefined ? {} : {family};
		outJson(
			terminalSafeJson(
				{version: 1, generatedAt: new Date(now).toISOString(), task: view, ...tree, entries: jsonEntries(entries)},
				2,
			),
		);
	} else {
		const lines = family === undefined ? [] : familyLines(family).map(line => terminalSafe(line));
		// The family follows the task's heading line.
		const [heading = '', ...rest] = printTimelineText(view, entries).split('\n');
		outText([heading, ...lines, ...rest].join('\n'));
	}
	return 0;
}
