import {priceRowOf, type PriceTable, type Prices} from '../price-table.ts';

/**
 * What a request's tokens could cost at most at the price table (docs/otel.md, "What a cost may
 * be"): each kind of token (input, cache writes, cache reads, output) at the dearest price the
 * model's row has for it, in any tier, with the US-inference uplift. A reported cost above it is a
 * claim its tokens cannot back: kept, marked, not summed.
 */

/** A request's tokens as the telemetry event keeps them: `input` counts cache reads and writes too. */
export type RequestTokens = {
	readonly model?: string | null;
	readonly input?: number | null;
	readonly output?: number | null;
	readonly cacheRead?: number | null;
	readonly cacheCreation?: number | null;
};

/** Rounding between Claude's figure and ours: a thousandth of a per cent, and a nano-dollar. */
const SLACK = 1.00001;
const NANO = 1e-9;

function dearest(rows: readonly Prices[], pick: (prices: Prices) => number): number {
	return Math.max(...rows.map(pick));
}

/** The most the request could cost in US dollars, or null when the table cannot say (a model it lacks, no tokens, another currency). */
export function costCeiling(table: PriceTable, request: RequestTokens): number | null {
	if (table.currency !== 'USD' || !request.model) return null;
	const row = priceRowOf(table, request.model);
	if (!row) return null;
	if (request.input == null && request.output == null) return null;
	const cacheRead = Math.max(0, request.cacheRead ?? 0);
	const cacheWrite = Math.max(0, request.cacheCreation ?? 0);
	const input = Math.max(0, (request.input ?? 0) - cacheRead - cacheWrite);
	const output = Math.max(0, request.output ?? 0);
	const tiers: Prices[] = row.longPrompt ? [row, row.longPrompt] : [row];
	const micro =
		input * dearest(tiers, prices => prices.input) +
		cacheWrite * dearest(tiers, prices => Math.max(prices.cacheWrite5m, prices.cacheWrite1h)) +
		cacheRead * dearest(tiers, prices => prices.cacheRead) +
		output * dearest(tiers, prices => prices.output);
	return (micro / 1e6) * Math.max(1, table.usGeoMultiplier);
}

/** Whether a reported cost is one its tokens can back: not negative, and at most the ceiling (with rounding's slack). */
export function isWithinCeiling(costUsd: number, ceiling: number | null): boolean {
	return ceiling !== null && costUsd >= 0 && costUsd <= ceiling * SLACK + NANO;
}
