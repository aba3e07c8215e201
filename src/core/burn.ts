import {costOf, formatCost} from './cost.ts';
import {formatCount} from './format.ts';
import type {PriceTable} from './price-table.ts';
import {addUsageByModel, type UsageByModel} from './spend.ts';

/** Burn rate is what was spent over this many minutes, per minute (docs/tree-and-cost.md). */
export const BURN_WINDOW_MINUTES = 10;

/** What a task spent in one clock minute: its tokens, and per model for the cost. */
export type BurnBucket = {
	readonly minute: number;
	readonly tokens: number;
	readonly byModel: UsageByModel | null;
	/** Some of its tokens came with no model: its cost cannot be priced. */
	readonly isUnpriced: boolean;
};

/** Adds a tokens report to a task's recent minutes, keeping only the window's (and the minute before it). */
export function addBurn(
	buckets: readonly BurnBucket[] | undefined,
	at: number,
	tokens: number,
	byModel: UsageByModel | null,
): readonly BurnBucket[] {
	const minute = Math.floor(at / 60_000);
	const kept = (buckets ?? []).filter(bucket => bucket.minute > minute - BURN_WINDOW_MINUTES - 1);
	const index = kept.findIndex(bucket => bucket.minute === minute);
	const isUnpriced = byModel === null && tokens > 0;
	if (index < 0) return [...kept, {minute, tokens, byModel, isUnpriced}].sort((a, b) => a.minute - b.minute);
	const old = kept[index] as BurnBucket;
	const merged = {
		minute,
		tokens: old.tokens + tokens,
		byModel: addUsageByModel(old.byModel, byModel),
		isUnpriced: old.isUnpriced || isUnpriced,
	};
	return kept.map((bucket, at) => (at === index ? merged : bucket));
}

/** Tokens and money per minute over the last ten minutes, of the tasks given (a tree, or the whole board). */
export type Burn = {readonly tokensPerMinute: number; readonly costPerMinute: number | null; readonly currency: string};

export function burnOf(
	tasks: Iterable<{readonly burn?: readonly BurnBucket[] | undefined}>,
	now: number,
	prices: PriceTable,
): Burn {
	// The window is the ten minutes up to now, the current minute included as far as it went.
	const from = Math.floor(now / 60_000) - BURN_WINDOW_MINUTES + 1;
	let tokens = 0;
	let byModel: UsageByModel | null = null;
	let isUnpriced = false;
	for (const task of tasks) {
		for (const bucket of task.burn ?? []) {
			if (bucket.minute < from) continue;
			tokens += bucket.tokens;
			byModel = addUsageByModel(byModel, bucket.byModel);
			isUnpriced ||= bucket.isUnpriced;
		}
	}
	const cost = costOf({byModel, hasUnpricedTokens: isUnpriced}, prices);
	return {
		tokensPerMinute: tokens / BURN_WINDOW_MINUTES,
		costPerMinute: tokens === 0 ? 0 : cost.amount === null ? null : cost.amount / BURN_WINDOW_MINUTES,
		currency: cost.currency,
	};
}

/** `burn 1.4k tok/min · $0.057/min`, or null while nothing was spent in the window. */
export function formatBurn(burn: Burn): string | null {
	if (burn.tokensPerMinute === 0) return null;
	const money =
		burn.costPerMinute === null
			? 'cost unknown'
			: `${formatCost({amount: burn.costPerMinute, currency: burn.currency, priced: 'table', asOf: null})}/min`;
	return `burn ${formatCount(Math.round(burn.tokensPerMinute))} tok/min · ${money}`;
}
