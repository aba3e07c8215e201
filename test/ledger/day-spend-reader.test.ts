import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {dayCostOf, localDayOf} from '../../src/core/day-cost.ts';
import {EventType, newEvent} from '../../src/core/events.ts';
import {shippedPriceTable} from '../../src/core/price-table.ts';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {createDaySpendReader} from '../../src/ledger/status-file.ts';
import {scratchDir} from '../helpers/cli.ts';

const PRICES = shippedPriceTable();
const HOUR = 3_600_000;

describe("the day's spend kept between passes", () => {
	it('reads each row once: later passes add only new rows, a new day starts again', () => {
		const ledger = openLedger(join(scratchDir('cr-day-spend-'), 'ledger.db'));
		try {
			const now = Date.now();
			const day = localDayOf(now);
			const request = (taskId: string, at: number, costUsd: number) =>
				newEvent(EventType.telemetryRequest, {requestId: `${taskId}-${at}`, costUsd}, {taskId, at, source: 'otel'});
			const spendOf = createDaySpendReader();
			ledger.writer.append([
				newEvent(EventType.registered, {title: 'spends'}, {taskId: 'c-1', at: day.from - HOUR, source: 'claude'}),
				request('c-1', day.from - HOUR, 100),
				request('c-1', day.from, 1),
			]);
			expect(dayCostOf(spendOf(ledger.reader, now), PRICES).amount).toBe(1);
			expect(dayCostOf(spendOf(ledger.reader, now), PRICES).amount).toBe(1);
			// A row of today written later, and one of yesterday ingested late: only the first adds.
			ledger.writer.append([request('c-1', now, 0.5), request('c-1', day.from - 1, 7)]);
			expect(dayCostOf(spendOf(ledger.reader, now), PRICES).amount).toBe(1.5);
			expect(dayCostOf(createDaySpendReader()(ledger.reader, now), PRICES).amount).toBe(1.5);
			// The next day holds none of it.
			const tomorrow = spendOf(ledger.reader, day.until);
			expect(tomorrow.day.from).toBe(day.until);
			expect(dayCostOf(tomorrow, PRICES).amount).toBe(0);
		} finally {
			ledger.close();
		}
	});
});
