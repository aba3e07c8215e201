import {priceRowOf, type PriceTable, type Prices} from './price-table.ts';
import {LONG_PROMPT_TOKENS, parseBucket, type ModelUsage, type UsageByModel} from './spend.ts';

/**
 * What a task or a tree cost: `table` (from the price table, dated `asOf`), `reported` (the agent's
 * own figure), or `unknown` (a model the table does not price, or tokens of no known model: never 0).
 */
export type Cost = {
	readonly amount: number | null;
	readonly currency: string;
	readonly priced: 'table' | 'reported' | 'unknown';
	/** The date of the prices used (the oldest row's), or of the agent's report; null when unknown. */
	readonly asOf: string | null;
	/** Models the table has no price for. */
	readonly unpriced?: readonly string[];
	/** Beside a reported figure: what the table makes of the same usage, when it can. */
	readonly tableAmount?: number | null;
};

/** What a run of usage came to, and of which models. */
export type Spend = {
	readonly byModel: UsageByModel | null;
	/** Tokens were counted that no answer named a model for. */
	readonly hasUnpricedTokens: boolean;
};

/**
 * Rounds away the float noise of the sums: prices per million tokens with two decimals make nothing
 * finer than 1e-8 of the currency per token, so ten digits keep every figure exact (Claude's own
 * `0.0001574` for one Haiku answer).
 */
function roundNoise(amount: number): number {
	return Math.round(amount * 1e10) / 1e10;
}

function priceOf(usage: ModelUsage, prices: Prices): number {
	return (
		usage.input * prices.input +
		usage.cacheWrite5m * prices.cacheWrite5m +
		usage.cacheWrite1h * prices.cacheWrite1h +
		usage.cacheRead * prices.cacheRead +
		usage.output * prices.output
	);
}

/**
 * Prices usage with the table: each bucket at its model's row (the long-prompt tier for answers
 * whose prompt passed it, the US-inference uplift where the answer says so). Any model missing from
 * the table, or tokens of no model, make the whole amount unknown: a partial sum would read as the
 * cost. No usage at all is unknown too (nothing was reported), never 0.
 */
export function costOf(spend: Spend, table: PriceTable): Cost {
	const unknown = (unpriced: string[] = []): Cost => ({
		amount: null,
		currency: table.currency,
		priced: 'unknown',
		asOf: null,
		...(unpriced.length > 0 ? {unpriced} : {}),
	});
	if (spend.byModel === null) return unknown();
	let micro = 0;
	let asOf: string | null = null;
	const unpriced = new Set<string>();
	for (const [bucket, usage] of Object.entries(spend.byModel)) {
		const {model, isLong, isUs} = parseBucket(bucket);
		const row = priceRowOf(table, model);
		// A long answer of a model whose tier starts elsewhere than where the count split them cannot be priced.
		const tierMismatch = isLong && row?.longPrompt && row.longPrompt.above !== LONG_PROMPT_TOKENS;
		if (!row || tierMismatch) {
			unpriced.add(model);
			continue;
		}
		const prices = isLong && row.longPrompt ? row.longPrompt : row;
		micro += priceOf(usage, prices) * (isUs ? table.usGeoMultiplier : 1);
		if (asOf === null || row.asOf < asOf) asOf = row.asOf;
	}
	if (unpriced.size > 0) return unknown([...unpriced].sort());
	if (spend.hasUnpricedTokens) return unknown();
	return {amount: roundNoise(micro / 1e6), currency: table.currency, priced: 'table', asOf};
}

/** The agent's own figure, with what the table makes of the same usage beside it. */
export function reportedCost(amount: number, currency: string, at: number, computed: Cost): Cost {
	return {
		amount: roundNoise(amount),
		currency,
		priced: 'reported',
		asOf: new Date(at).toISOString().slice(0, 10),
		tableAmount: computed.currency === currency ? computed.amount : null,
	};
}

/** `$`, `€`, or the code and a space (`GBP `): what a figure is written after. */
export function currencySymbol(currency: string): string {
	return currency === 'USD' ? '$' : currency === 'EUR' ? '€' : `${currency} `;
}

/** `$0.0063`, `€1.20`, `unknown`: the board's cost cell. */
export function formatCost(cost: Cost): string {
	if (cost.amount === null) return 'unknown';
	const symbol = currencySymbol(cost.currency);
	// A sum too small for four decimals is not nothing: said as below the smallest figure shown.
	if (cost.amount > 0 && cost.amount < 0.0001) return `<${symbol}0.0001`;
	const digits = cost.amount >= 100 ? 0 : cost.amount >= 1 ? 2 : cost.amount >= 0.01 ? 3 : 4;
	return `${symbol}${cost.amount.toFixed(digits)}`;
}
