import {afterEach, describe, expect, it} from 'vitest';
import {
	addSpendRows,
	dayCostOf,
	dayCostOfRows,
	dayCostText,
	localDayOf,
	emptyDaySpend,
	type DayCost,
	type SpendRow,
} from '../../src/core/day-cost.ts';
import {EventType, newEvent, type EventDataOf} from '../../src/core/events.ts';
import {shippedPriceTable, withUserPrices} from '../../src/core/price-table.ts';

const PRICES = shippedPriceTable();
const HOUR = 3_600_000;
/** A day as localDayOf makes one: here 2026-12-02 in UTC. */
const DAY = {from: Date.UTC(2026, 11, 2), until: Date.UTC(2026, 11, 3)};
/** One answer of the fake Anthropic server on Opus 5.5: 1234×$4 + 100×$5 + 50×$0.20 + 42×$20 per million = $0.006286. */
const OPUS_ANSWER = {input: 1234, cacheWrite5m: 100, cacheWrite1h: 0, cacheRead: 50, output: 42, messages: 1};
const OPUS_ANSWER_USD = 0.006286;

let seq = 0;
function tokens(taskId: string, at: number, answers: number, model: string | null = 'claude-opus-5-5'): SpendRow {
	const data: EventDataOf<'task.tokens_reported'> = {
		input: answers * 1384,
		output: answers * 42,
		...(model === null
			? {}
			: {
					byModel: {
						[model]: {
							...OPUS_ANSWER,
							input: answers * 1234,
							cacheWrite5m: answers * 100,
							cacheRead: answers * 50,
							output: answers * 42,
							messages: answers,
						},
					},
				}),
	};
	return {...newEvent(EventType.tokensReported, data, {taskId, at, source: 'claude'}), seq: ++seq} as SpendRow;
}

function request(taskId: string, at: number, costUsd: number | undefined): SpendRow {
	const data = {
		requestId: `r-${seq}`,
		model: 'claude-opus-5-5',
		input: 1384,
		output: 42,
		...(costUsd === undefined ? {} : {costUsd}),
	};
	return {...newEvent(EventType.telemetryRequest, data, {taskId, at, source: 'otel'}), seq: ++seq} as SpendRow;
}

const cost = (amount: number | null, flags: Partial<DayCost> = {}): DayCost => ({
	amount,
	currency: 'USD',
	isEstimated: false,
	isPartial: false,
	...flags,
});

describe("the day's cost from the ledger's spend rows", () => {
	it('counts what a task spent today, not what it spent yesterday, priced by the table (an estimate)', () => {
		const rows = [
			tokens('c-1', DAY.from - HOUR, 2),
			tokens('c-1', DAY.from, 1),
			tokens('c-1', DAY.from + 9 * HOUR, 2),
			tokens('c-1', DAY.until, 5),
		];
		expect(dayCostOfRows(rows, DAY, PRICES)).toEqual(cost(3 * OPUS_ANSWER_USD, {isEstimated: true}));
	});

	it("takes the agent's own telemetry cost for a task that has it today, exact, and never adds its tokens again", () => {
		const rows = [
			tokens('c-1', DAY.from + HOUR, 2),
			request('c-1', DAY.from + HOUR, 0.0125),
			request('c-1', DAY.from + 2 * HOUR, 0.0175),
			request('c-1', DAY.from - HOUR, 5),
		];
		expect(dayCostOfRows(rows, DAY, PRICES)).toEqual(cost(0.03));
		// Beside a task priced by the table, the sum is marked as an estimate.
		expect(dayCostOfRows([...rows, tokens('c-2', DAY.from + HOUR, 1)], DAY, PRICES)).toEqual(
			cost(0.03 + OPUS_ANSWER_USD, {isEstimated: true}),
		);
	});

	it('prices a task by its tokens when its telemetry carried no cost (Codex sends none)', () => {
		const rows = [request('x-1', DAY.from + HOUR, undefined), tokens('x-1', DAY.from + HOUR, 1)];
		expect(dayCostOfRows(rows, DAY, PRICES)).toEqual(cost(OPUS_ANSWER_USD, {isEstimated: true}));
	});

	it('keeps the priced part of a day with unpriced tokens as a floor, and is unknown only when nothing could be priced', () => {
		const unpriced = [tokens('u-1', DAY.from + HOUR, 1, 'claude-unheard-of-9'), tokens('u-2', DAY.from + HOUR, 1, null)];
		expect(dayCostOfRows(unpriced, DAY, PRICES)).toEqual(cost(null, {isPartial: true}));
		expect(dayCostOfRows([...unpriced, tokens('c-1', DAY.from + HOUR, 1)], DAY, PRICES)).toEqual(
			cost(OPUS_ANSWER_USD, {isEstimated: true, isPartial: true}),
		);
		expect(dayCostOfRows([...unpriced, request('c-2', DAY.from + HOUR, 0.5)], DAY, PRICES)).toEqual(cost(0.5, {isPartial: true}));
	});

	it('is 0, known, on a day nothing was spent; tokens reports of no tokens add nothing', () => {
		expect(dayCostOfRows([], DAY, PRICES)).toEqual(cost(0));
		expect(dayCostOfRows([tokens('c-1', DAY.from + HOUR, 0, null)], DAY, PRICES)).toEqual(cost(0));
	});

	it('folds rows in passes to the same figure as all at once, and leaves the spend as it was when nothing is new', () => {
		const rows = [tokens('c-1', DAY.from + HOUR, 1), request('c-2', DAY.from + HOUR, 0.5), tokens('c-1', DAY.from + 2 * HOUR, 2)];
		const first = addSpendRows(emptyDaySpend(DAY), rows.slice(0, 2));
		expect(addSpendRows(first, [])).toBe(first);
		expect(dayCostOf(addSpendRows(first, rows.slice(2)), PRICES)).toEqual(dayCostOfRows(rows, DAY, PRICES));
		expect(dayCostOf(first, PRICES)).toEqual(cost(0.5 + OPUS_ANSWER_USD, {isEstimated: true}));
	});

	it('prices with the table in force: a price file changes the figure', () => {
		const dearer = withUserPrices(
			{
				asOf: '2026-12-02',
				models: {'claude-opus-5-5': {input: 8, output: 40, cacheWrite5m: 10, cacheWrite1h: 16, cacheRead: 0.4}},
			},
			'prices test',
		);
		expect(dayCostOfRows([tokens('c-1', DAY.from + HOUR, 1)], DAY, dearer).amount).toBeCloseTo(2 * OPUS_ANSWER_USD, 12);
	});

	it('reads as cents with its marks: exact, ~ estimated, + partial, < a cent, $— unknown', () => {
		expect(dayCostText(cost(1.234))).toBe('$1.23');
		expect(dayCostText(cost(1.236, {isEstimated: true}))).toBe('~$1.24');
		expect(dayCostText(cost(12.5, {isEstimated: true, isPartial: true}))).toBe('~$12.50+');
		expect(dayCostText(cost(0.004, {isEstimated: true}))).toBe('~<$0.01');
		expect(dayCostText(cost(0))).toBe('$0.00');
		expect(dayCostText(cost(null, {isPartial: true}))).toBe('$—');
		expect(dayCostText(null)).toBe('$—');
	});
});

describe('the local day', () => {
	const zone = process.env['TZ'];
	afterEach(() => {
		if (zone === undefined) delete process.env['TZ'];
		else process.env['TZ'] = zone;
	});

	it("is the person's calendar day in their time zone, 25 hours on the day the clocks go back", () => {
		const instant = Date.UTC(2026, 10, 1, 20, 0);
		process.env['TZ'] = 'UTC';
		expect(localDayOf(instant)).toEqual({from: Date.UTC(2026, 10, 1), until: Date.UTC(2026, 10, 2)});
		process.env['TZ'] = 'Pacific/Auckland';
		// 20:00 UTC is already the 2nd in Auckland (UTC+13 in November).
		expect(localDayOf(instant)).toEqual({from: Date.UTC(2026, 10, 1, 11), until: Date.UTC(2026, 10, 2, 11)});
		process.env['TZ'] = 'America/New_York';
		const day = localDayOf(instant);
		expect(day).toEqual({from: Date.UTC(2026, 10, 1, 4), until: Date.UTC(2026, 10, 2, 5)});
		expect((day.until - day.from) / HOUR).toBe(25);
	});
});
