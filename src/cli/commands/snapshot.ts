import {parseDuration} from '../../core/duration.ts';
import type {Snapshot} from '../../core/snapshot.ts';
import {isFleetUrl, redactUrl} from '../../ledger/fleet/connection.ts';
import {readFleetSnapshot, readFleetSnapshotAt} from '../../ledger/fleet/fleet-snapshot.ts';
import {hostName} from '../../ledger/host.ts';
import {isApproverAlive} from '../../gates/effects/liveness.ts';
import {terminalSafe, terminalSafeJson} from '../../core/terminal-text.ts';
import {readSnapshot} from '../../ledger/snapshot-query.ts';
import {parseCommandArgs, positiveInt} from '../args.ts';
import {commandSettings} from '../config-file.ts';
import {outJson, outText} from '../context.ts';
import {openReadingLedger} from '../reading-ledger.ts';
import {withFleet} from '../fleet-context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import type {CommandHelp} from '../help.ts';
import {printSnapshotText} from '../print-snapshot.ts';
import {loadPriceTable} from '../price-file.ts';
import {nonEmptyAs, personName} from '../person-name.ts';
import {AT_HELP, fleetTime, momentOf, parseAt, type AtFlag} from '../at-flag.ts';
import {readerAsOf} from '../../ledger/reader-as-of.ts';

/** The lanes --fail-on takes. */
const FAIL_LANES = ['needs-you', 'lost', 'stalled', 'failed', 'reviews', 'decisions'] as const;

export const help: CommandHelp = {
	synopsis: [
		'snapshot [--json] [--fail-on LANE]... [--since DURATION | --all] [--stall S]',
		'snapshot [--json] [--fail-on LANE]... [--stall S] --ledger postgres://...',
		'snapshot [--as NAME] ...',
		'snapshot --at TIME|SEQ [--json] ...',
	],
	description: `Prints the board once, without a terminal, for scripts and CI: every task not ended plus those
that ended within the window (default 24h); counts always cover the whole ledger. Opens a
read-only ledger read-only. With --ledger postgres://... it prints the whole fleet: every host that
syncs there, each task with its host (docs/fleet.md).`,
	options: [
		['--json', 'snapshot JSON version 1 (docs/snapshot.md)'],
		[
			'--fail-on LANE',
			'exit 1 when LANE is not empty, and say on stderr which tasks are in it; LANE is needs-you, lost, stalled, failed, reviews (a review that needs a person, docs/review.md) or decisions (a question an agent waits on, docs/decisions.md); repeat it for several',
		],
		[
			'--since DURATION',
			"how far back ended tasks are listed, like 90m, 24h or 7d (default 24h, or the config file's endedWindow)",
		],
		['--all', 'list every task the ledger holds'],
		AT_HELP,
		['--as NAME', 'whose looks `seen` and the `●` marks are about (default $USER; docs/tmux.md, "Seen and unseen")'],
		[
			'--stall S',
			"the agent's silence (seconds) after which a running task is stalled, for health, the stalled lane and --fail-on stalled (default 600, or CONTROLROOM_STALL_SECONDS, or the config file's stallSeconds; a task's own wins)",
		],
	],
	exits: [
		['0', 'printed (and no --fail-on lane has a task)'],
		[
			'1',
			'a --fail-on lane has a task (stderr names the lane and its tasks), or the ledger cannot be read (a fleet server out of reach)',
		],
		['64', 'bad command line: an unknown flag, a bad value, a --ledger that names no ledger'],
		['78', 'the config file is wrong (the line names it and the field; docs/config.md)'],
	],
	choices: {LANE: FAIL_LANES},
	examples: [
		['controlroom snapshot', 'the board once, as text'],
		['controlroom snapshot --json --all > board.json', 'every task, as JSON'],
		['controlroom snapshot --fail-on lost --fail-on failed', 'fail a CI step when a task was lost or failed'],
		['controlroom snapshot --fail-on reviews', 'fail a CI step while a review needs a person'],
		['controlroom snapshot --fail-on decisions', 'fail a CI step while an agent waits for a yes or no'],
		['controlroom snapshot --fail-on stalled --stall 300', 'fail a CI step when an agent has been silent for five minutes'],
		['controlroom snapshot --json --ledger postgres://fleet.example/db', 'every host of the fleet, as JSON'],
	],
};

type FailLane = (typeof FAIL_LANES)[number];
/** How many task ids a --fail-on line names before it says "and N more". */
const NAMED_TASKS = 5;

/** The tasks that put a lane of --fail-on in the way, each id once. */
function laneTasks(snapshot: Snapshot, lane: FailLane): string[] {
	switch (lane) {
		case 'needs-you':
			return [...new Set(snapshot.queue.lanes.flatMap(queueLane => queueLane.items.map(item => item.taskId)))];
		case 'lost':
			return snapshot.tasks.filter(task => task.status === 'lost').map(task => task.id);
		case 'stalled':
			return snapshot.tasks.filter(task => task.health === 'stalled').map(task => task.id);
		case 'failed':
			return snapshot.tasks.filter(task => task.status === 'failed').map(task => task.id);
		case 'reviews':
			return snapshot.queue.lanes.find(queueLane => queueLane.name === 'reviews')?.items.map(item => item.taskId) ?? [];
		case 'decisions':
			// Every question a person can still answer (the lane shows five): named by its id.
			return snapshot.decisions
				.filter(decision => decision.state === 'open' && decision.isWaiting !== false)
				.map(decision => decision.id);
	}
}

/** How many entries a lane holds: the queue's own total for needs-you (lanes show five at most). */
function laneTotal(snapshot: Snapshot, lane: FailLane, tasks: readonly string[]): number {
	if (lane === 'needs-you') return snapshot.queue.total;
	if (lane === 'stalled') return Math.max(snapshot.counts.stalled, tasks.length);
	return tasks.length;
}

/** `--fail-on lost: 2 tasks (w-1, w-2)`: the lane that matched and what is in it. */
function describeMatch(lane: FailLane, total: number, tasks: readonly string[]): string {
	const named = tasks.slice(0, NAMED_TASKS).join(', ');
	const more = total > NAMED_TASKS ? `, and ${total - NAMED_TASKS} more` : '';
	const noun =
		lane === 'needs-you'
			? `entr${total === 1 ? 'y' : 'ies'}`
			: lane === 'decisions'
				? `question${total === 1 ? '' : 's'}`
				: `task${total === 1 ? '' : 's'}`;
	return `--fail-on ${lane}: ${total} ${noun}${named === '' ? '' : ` (${named}${more})`}`;
}

/** `controlroom snapshot`: the board, once, for scripts and CI. */
export async function run(argv: readonly string[]): Promise<number> {
	const {values} = parseCommandArgs(
		'snapshot',
		argv,
		{
			json: {type: 'boolean'},
			'fail-on': {type: 'string', multiple: true},
			since: {type: 'string'},
			all: {type: 'boolean'},
			stall: {type: 'string'},
			as: {type: 'string'},
			at: {type: 'string'},
		},
		false,
	);
	const at = parseAt(values.at);
	const person = personName(nonEmptyAs('snapshot', values.as));
	if (values.since !== undefined && values.all) throw new CliError('snapshot: --since and --all exclude each other', USAGE_EXIT);
	const failOn = [
		...new Set(
			(values['fail-on'] ?? []).map(lane => {
				if (!(FAIL_LANES as readonly string[]).includes(lane)) {
					throw new CliError(`--fail-on: expected one of ${FAIL_LANES.join(', ')}, got '${lane}'`, USAGE_EXIT);
				}
				return lane as FailLane;
			}),
		),
	];
	const since = values.since === undefined ? undefined : parseDuration(values.since);
	if (since === null) throw new CliError(`--since: expected a duration like 90m, 24h or 7d, got '${values.since}'`, USAGE_EXIT);
	const settings = commandSettings({endedWindow: since, stallSeconds: positiveInt('stall', values.stall)});
	// --all lists every task, whatever window a flag, the config file or the default would give.
	const windowMs = values.all ? null : settings.endedWindow;
	const {stallSeconds} = settings;
	// The text shows helpers folded under their parent, as the board does: unless a --fail-on lane
	// must see each of them, they are not built at all (100,000 helpers of one session are one row).
	const foldHelpers = !values.json && failOn.length === 0;
	const snapshot = isFleetUrl(values.ledger)
		? await withFleet(values.ledger, 'snapshot', fleet =>
				at === undefined
					? readFleetSnapshot(fleet, {
							now: Date.now(),
							windowMs,
							stallSeconds,
							person,
							foldHelpers,
							withStats: values.json === true,
						})
					: readFleetSnapshotAt(fleet, fleetTime(at), {windowMs, stallSeconds, person, foldHelpers}),
			)
		: readLocal(values.ledger, windowMs, stallSeconds, person, foldHelpers, at, values.json === true);
	const ledger = isFleetUrl(values.ledger) ? `fleet ${redactUrl(values.ledger)}` : undefined;
	const width = process.stdout.isTTY ? process.stdout.columns : undefined;
	if (values.json) outJson(terminalSafeJson(snapshot, 2));
	else outText(printSnapshotText(snapshot, {width, ledger}));
	const matches = failOn.flatMap(lane => {
		const tasks = laneTasks(snapshot, lane);
		const total = laneTotal(snapshot, lane, tasks);
		return total > 0 ? [describeMatch(lane, total, tasks)] : [];
	});
	if (matches.length > 0) process.stderr.write(`controlroom: ${terminalSafe(matches.join('; '))}\n`);
	return matches.length > 0 ? 1 : 0;
}

function readLocal(
	ledgerFlag: string | undefined,
	windowMs: number | null,
	stallSeconds: number,
	person: string,
	foldHelpers: boolean,
	at: AtFlag | undefined,
	withStats: boolean,
): Snapshot {
	const ledger = openReadingLedger(ledgerFlag);
	try {
		const prices = loadPriceTable();
		const query = (now: number) => ({
			now,
			windowMs,
			stallSeconds,
			host: hostName(),
			// A past moment's processes cannot be asked: each is taken as alive then, as the ledger leaves it.
			isApproverAlive: at === undefined ? isApproverAlive : () => true,
			prices,
			person,
			foldHelpers,
			withStats,
		});
		if (at === undefined) return ledger.readAt(now => readSnapshot(ledger.reader, query(now)));
		const moment = momentOf(ledger.reader, at);
		return readSnapshot(readerAsOf(ledger.reader, moment), query(moment.now));
	} finally {
		ledger.close();
	}
}
