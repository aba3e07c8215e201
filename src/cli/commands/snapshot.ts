import {parseDuration} from '../../core/duration.ts';
import type {Snapshot} from '../../core/snapshot.ts';
import {isFleetUrl} from '../../ledger/fleet/connection.ts';
import {readFleetSnapshot} from '../../ledger/fleet/fleet-snapshot.ts';
import {hostName} from '../../ledger/host.ts';
import {readSnapshot} from '../../ledger/snapshot-query.ts';
import {parseCommandArgs} from '../args.ts';
import {openCommandLedger, out} from '../context.ts';
import {withFleet} from '../fleet-context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import {printSnapshotText} from '../print-snapshot.ts';

export const usage = `controlroom snapshot [--json] [--fail-on needs-you|lost|stalled|failed] [--since DURATION | --all] [--ledger PATH | --ledger postgres://...]
  Prints the board once. Lists every task not ended plus those ended within the window (default 24h).
  --fail-on exits 1 when that lane is not empty. With --ledger postgres://... it prints the whole
  fleet (every host that syncs there; each task carries its host).`;

const FAIL_LANES = ['needs-you', 'lost', 'stalled', 'failed'] as const;
type FailLane = (typeof FAIL_LANES)[number];
const DEFAULT_WINDOW_MS = 24 * 3_600_000;

function laneIsEmpty(snapshot: Snapshot, lane: FailLane): boolean {
	switch (lane) {
		case 'needs-you':
			return snapshot.queue.total === 0;
		case 'lost':
			return !snapshot.tasks.some(task => task.status === 'lost');
		case 'stalled':
			return snapshot.counts.stalled === 0;
		case 'failed':
			return !snapshot.tasks.some(task => task.status === 'failed');
	}
}

/** `controlroom snapshot`: the board, once, for scripts and CI. */
export async function run(argv: readonly string[]): Promise<number> {
	const {values} = parseCommandArgs(
		'snapshot',
		argv,
		{json: {type: 'boolean'}, 'fail-on': {type: 'string', multiple: true}, since: {type: 'string'}, all: {type: 'boolean'}},
		false,
	);
	if (values.help) return (out(usage), 0);
	if (values.since !== undefined && values.all) throw new CliError('snapshot: --since and --all exclude each other', USAGE_EXIT);
	const failOn = (values['fail-on'] ?? []).map(lane => {
		if (!(FAIL_LANES as readonly string[]).includes(lane)) {
			throw new CliError(`--fail-on: expected one of ${FAIL_LANES.join(', ')}, got '${lane}'`, USAGE_EXIT);
		}
		return lane as FailLane;
	});
	let windowMs: number | null = DEFAULT_WINDOW_MS;
	if (values.all) windowMs = null;
	if (values.since !== undefined) {
		windowMs = parseDuration(values.since);
		if (windowMs === null)
			throw new CliError(`--since: expected a duration like 90m, 24h or 7d, got '${values.since}'`, USAGE_EXIT);
	}
	const snapshot = isFleetUrl(values.ledger)
		? await withFleet(values.ledger, 'snapshot', fleet => readFleetSnapshot(fleet, {now: Date.now(), windowMs}))
		: readLocal(values.ledger, windowMs);
	out(values.json ? JSON.stringify(snapshot, null, 2) : printSnapshotText(snapshot));
	return failOn.some(lane => !laneIsEmpty(snapshot, lane)) ? 1 : 0;
}

function readLocal(ledgerFlag: string | undefined, windowMs: number | null): Snapshot {
	const ledger = openCommandLedger(ledgerFlag, {isReading: true});
	try {
		return readSnapshot(ledger.reader, {now: Date.now(), windowMs, host: hostName()});
	} finally {
		ledger.close();
	}
}
