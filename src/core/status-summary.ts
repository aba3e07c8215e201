import {dayCostText, type DayCost} from './day-cost.ts';
import type {FamilyFacts} from './family.ts';
import type {HumanQueue} from './human-queue.ts';
import {carriedByHelpers, laneOf} from './snapshot.ts';
import {deriveHealth, isListed} from './status.ts';
import type {Task} from './task.ts';

/**
 * The one-line summary tmux's status line shows (docs/tmux.md, "Status line"): what the board
 * and the reconciler keep in a small file beside the ledger, so that `controlroom status` can
 * answer from a shell, with no Node start, every two seconds.
 */
export type StatusSummary = {
	/** When it was made, whole seconds since the epoch (what the shell entry compares with `date +%s`). */
	readonly at: number;
	readonly needs: number;
	readonly decisions: number;
	readonly running: number;
	readonly stalled: number;
	readonly lost: number;
	/** What the local day's spend came to (src/core/day-cost.ts), or null: not known (the prices could not be read). */
	readonly costToday: DayCost | null;
	/** When that day ends, whole seconds since the epoch: from then on the figure is yesterday's, and unknown. */
	readonly dayEndsAt: number;
};

/** What the summary counts: Needs you and its Decisions lane, and the running, stalled and lost lanes. */
export type SummaryCounts = Pick<StatusSummary, 'needs' | 'decisions' | 'running' | 'stalled' | 'lost'>;

/**
 * The summary's counts as the snapshot's lanes and queue have them (docs/tmux.md), from the queue
 * and the tasks that can be in those lanes: the open ones and the lost ones of the window, with the
 * tree over them (a stalled task whose helpers work is running). The ended tasks of the window,
 * which a snapshot lists and these lanes never hold, are not needed.
 */
export function summaryCountsOf(
	queue: HumanQueue,
	tasks: readonly Task[],
	family: ReadonlyMap<string, FamilyFacts>,
	now: number,
	stallSeconds?: number,
): SummaryCounts {
	const counts = {running: 0, stalled: 0, lost: 0};
	for (const task of tasks) {
		if (!isListed(task)) continue;
		const health = deriveHealth(task.status, task.lastSeenAt, now, task.stallSeconds ?? stallSeconds);
		const {lane} = carriedByHelpers({status: task.status, health, lane: laneOf(task.status, health)}, family.get(task.id));
		if (lane === 'running' || lane === 'stalled' || lane === 'lost') counts[lane] += 1;
	}
	return {
		needs: queue.total,
		decisions: queue.lanes.find(entry => entry.name === 'decisions')?.total ?? 0,
		...counts,
	};
}

/** The summary of those counts, made at `now` (ms), with the cost of the day `now` falls in, which ends at `dayEndsAt` (ms). */
export function statusSummary(counts: SummaryCounts, now: number, costToday: DayCost | null, dayEndsAt: number): StatusSummary {
	return {
		at: Math.floor(now / 1000),
		...counts,
		costToday,
		dayEndsAt: Math.floor(dayEndsAt / 1000),
	};
}

/** The day's cost as of `ageSeconds` after the summary was made: null once that day is over. */
function costAsOf(summary: StatusSummary, ageSeconds: number): DayCost | null {
	return summary.at + ageSeconds >= summary.dayEndsAt ? null : summary.costToday;
}

/** A figure as the file and JSON carry it: at most six decimals, never an exponent. */
function plainNumber(value: number): string {
	return String(Number(value.toFixed(6)));
}

/** The file's fields, in its order; the shell entry reads them by these names. */
const FIELDS = [
	'at',
	'iso',
	'needs',
	'decisions',
	'running',
	'stalled',
	'lost',
	'cost',
	'costtext',
	'estimated',
	'partial',
	'until',
] as const;

/**
 * The summary file: `v=1`, then `name=value` a line (a number, or empty for unknown). `costtext` is
 * `{cost}` as the line shows it (marks included), so the shell prints what Node would.
 */
export function summaryFileText(summary: StatusSummary): string {
	const cost = summary.costToday;
	const known = cost !== null && cost.amount !== null;
	const values: Record<(typeof FIELDS)[number], string> = {
		at: String(summary.at),
		// The shell writes `at` in JSON as it is here: formatting a time there would cost a `date` of its own.
		iso: new Date(summary.at * 1000).toISOString(),
		needs: String(summary.needs),
		decisions: String(summary.decisions),
		running: String(summary.running),
		stalled: String(summary.stalled),
		lost: String(summary.lost),
		cost: known ? plainNumber(cost.amount as number) : '',
		costtext: known ? dayCostText(cost) : '',
		estimated: known && cost.isEstimated ? '1' : '0',
		partial: cost?.isPartial ? '1' : '0',
		until: String(summary.dayEndsAt),
	};
	return `v=1\n${FIELDS.map(field => `${field}=${values[field]}`).join('\n')}\n`;
}

/** The default line, worded as snapshot's counts line: `needs you 3 · decisions 1 · running 2 · stalled 0 · lost 1 · today ~$1.23`. */
export const DEFAULT_STATUS_FORMAT =
	'needs you {needs} · decisions {decisions} · running {running} · stalled {stalled} · lost {lost} · today {cost}{stale}';

/** Older than this, the line says how old it is: the board and the reconciler both write every 5 s. */
export const STALE_AFTER_SECONDS = 30;

/** The `{stale}` part: empty while fresh, else ` (summary 2m old)`. */
export function staleText(ageSeconds: number): string {
	if (ageSeconds < STALE_AFTER_SECONDS) return '';
	const age =
		ageSeconds < 120
			? `${ageSeconds}s`
			: ageSeconds < 7200
				? `${Math.floor(ageSeconds / 60)}m`
				: `${Math.floor(ageSeconds / 3600)}h`;
	return ` (summary ${age} old)`;
}

/** Fills `{needs}`, `{decisions}`, `{running}`, `{stalled}`, `{lost}`, `{cost}`, `{age}`, `{stale}`; other text stays as it is. */
export function formatStatus(summary: StatusSummary, format: string, ageSeconds: number): string {
	const values: Record<string, string> = {
		needs: String(summary.needs),
		decisions: String(summary.decisions),
		running: String(summary.running),
		stalled: String(summary.stalled),
		lost: String(summary.lost),
		cost: dayCostText(costAsOf(summary, ageSeconds)),
		age: String(ageSeconds),
		stale: staleText(ageSeconds),
	};
	return format.replace(/\{([a-z]+)\}/g, (whole, name: string) => values[name] ?? whole);
}

/** `status --json`. */
export function statusJson(summary: StatusSummary, ageSeconds: number): string {
	const cost = costAsOf(summary, ageSeconds);
	return JSON.stringify({
		v: 1,
		at: new Date(summary.at * 1000).toISOString(),
		ageSeconds,
		needs: summary.needs,
		decisions: summary.decisions,
		running: summary.running,
		stalled: summary.stalled,
		lost: summary.lost,
		costToday: cost === null || cost.amount === null ? null : Number(plainNumber(cost.amount)),
		costTodayIsEstimated: cost !== null && cost.amount !== null && cost.isEstimated,
		costTodayIsPartial: cost?.isPartial ?? false,
	});
}
