import {costOf, currencySymbol} from './cost.ts';
import {EventType, type EventOfType} from './events.ts';
import type {PriceTable} from './price-table.ts';
import {addUsageByModel, usageByModelOf, type UsageByModel} from './spend.ts';

/** The rows a day's spend is made of: tokens reports (priced by the table) and telemetry requests (priced by the agent). */
export type SpendRow = EventOfType<typeof EventType.tokensReported | typeof EventType.telemetryRequest>;

/** The event types `dayCostOf` reads, for the ledger's query. */
export const SPEND_EVENT_TYPES = [EventType.tokensReported, EventType.telemetryRequest] as const;

/** A local calendar day, as ms since the epoch: from its midnight up to (not including) the next. */
export type LocalDay = {readonly from: number; readonly until: number};

/**
 * The day `now` falls in, in the local time zone of this process (`TZ`, else the system's): the
 * person's day, not UTC's. A day of a clock change is 23 or 25 hours long (docs/tmux.md, "Cost today").
 */
export function localDayOf(now: number): LocalDay {
	const date = new Date(now);
	const from = new Date(date.getFullYear(), date.getMonth(), date.getDate()).getTime();
	const until = new Date(date.getFullYear(), date.getMonth(), date.getDate() + 1).getTime();
	return {from, until};
}

/**
 * What a day's spend came to. `amount` is the sum of every part that could be priced (null when
 * there was spend and none of it could be); `isEstimated` when some of it is the price table's
 * figure rather than the agent's own; `isPartial` when some of the day's tokens could not be priced
 * (a model the table lacks, tokens of no model), so the amount is a floor.
 */
export type DayCost = {
	readonly amount: number | null;
	readonly currency: string;
	readonly isEstimated: boolean;
	readonly isPartial: boolean;
};

/** One task's part of the day: the agent's own figures, or its tokens for the table. */
type TaskDay = {
	readonly told: number | null;
	readonly byModel: UsageByModel | null;
	readonly hasUnpricedTokens: boolean;
};

/**
 * A day's spend so far, per task, folded from the ledger's rows: what `dayCostOf` prices. Kept
 * between passes by the board and the reconciler, so each pass folds only the rows that are new
 * (src/ledger/status-file.ts).
 */
export type DaySpend = {readonly day: LocalDay; readonly tasks: ReadonlyMap<string, TaskDay>};

export function emptyDaySpend(day: LocalDay): DaySpend {
	return {day, tasks: new Map()};
}

/**
 * Folds spend rows into the day's. Each row is counted on the day it is dated, so a task that
 * started yesterday adds only what it spent today; rows outside the day are ignored.
 */
export function addSpendRows(spend: DaySpend, rows: Iterable<SpendRow>): DaySpend {
	let tasks: Map<string, TaskDay> | null = null;
	for (const row of rows) {
		if (row.at < spend.day.from || row.at >= spend.day.until) continue;
		tasks ??= new Map(spend.tasks);
		const task = tasks.get(row.taskId) ?? {told: null, byModel: null, hasUnpricedTokens: false};
		if (row.type === EventType.telemetryRequest) {
			const cost = row.data.costUsd;
			if (typeof cost === 'number' && Number.isFinite(cost) && cost >= 0)
				tasks.set(row.taskId, {...task, told: (task.told ?? 0) + cost});
			else tasks.set(row.taskId, task);
			continue;
		}
		const byModel = usageByModelOf(row.data.byModel);
		const hasTokens = (row.data.input ?? 0) > 0 || (row.data.output ?? 0) > 0;
		tasks.set(row.taskId, {
			...task,
			byModel: addUsageByModel(task.byModel, byModel),
			hasUnpricedTokens: task.hasUnpricedTokens || (byModel === null && hasTokens),
		});
	}
	return tasks === null ? spend : {day: spend.day, tasks};
}

/**
 * What a day's spend cost (docs/tmux.md, "Cost today"). Per task, as its own cost is
 * (src/core/family.ts): where the agent's telemetry priced its requests (`costUsd`), their sum,
 * exact; otherwise its tokens reports priced by the table, an estimate. Both count the same
 * answers, so a task is never priced twice. No spend at all is 0, known: nothing the ledger saw
 * was spent.
 */
export function dayCostOf(spend: DaySpend, prices: PriceTable): DayCost {
	let amount = 0;
	let priced = 0;
	let isEstimated = false;
	let isPartial = false;
	for (const task of spend.tasks.values()) {
		// Telemetry's `cost_usd` is in US dollars: it adds up only with a table in the same currency.
		if (task.told !== null && prices.currency === 'USD') {
			amount += task.told;
			priced += 1;
			continue;
		}
		if (task.told !== null) {
			isPartial = true;
			continue;
		}
		if (task.byModel === null && !task.hasUnpricedTokens) continue;
		const cost = costOf({byModel: task.byModel, hasUnpricedTokens: task.hasUnpricedTokens}, prices);
		if (cost.amount === null) {
			isPartial = true;
			continue;
		}
		amount += cost.amount;
		priced += 1;
		isEstimated = true;
	}
	const nothingPriced = priced === 0 && isPartial;
	return {
		// Rounded to the nano-unit: the sums of per-million prices carry float noise below it.
		amount: nothingPriced ? null : Math.round(amount * 1e9) / 1e9,
		currency: prices.currency,
		isEstimated,
		isPartial,
	};
}

/** The cost of the spend rows dated within `day`: `dayCostOf` of their fold. */
export function dayCostOfRows(rows: Iterable<SpendRow>, day: LocalDay, prices: PriceTable): DayCost {
	return dayCostOf(addSpendRows(emptyDaySpend(day), rows), prices);
}

/**
 * The day's cost as the status line shows it, in cents: `$1.23`, `~$1.23` when any part is an
 * estimate, `$1.23+` when some of the spend could not be priced, `<$0.01` for less than a cent,
 * `$0.00` for nothing spent, `$—` when none of it could be priced (docs/tmux.md, "Cost today").
 */
export function dayCostText(cost: DayCost | null): string {
	const symbol = currencySymbol(cost?.currency ?? 'USD');
	if (cost === null || cost.amount === null) return `${symbol}—`;
	const figure = cost.amount > 0 && cost.amount < 0.01 ? `<${symbol}0.01` : `${symbol}${cost.amount.toFixed(2)}`;
	return `${cost.isEstimated ? '~' : ''}${figure}${cost.isPartial ? '+' : ''}`;
}
