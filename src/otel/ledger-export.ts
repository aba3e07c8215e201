import {EventType, type LedgerEvent} from '../core/events.ts';
import {spansClosedBy, type SpanLookups} from '../core/otel/span-plan.ts';
import {traceOfTask, type TaskTrace} from '../core/otel/trace-chain.ts';
import type {Ledger} from '../ledger/open-ledger.ts';
import {traceFactsOf} from '../ledger/trace-facts.ts';
import type {SpanSender} from './span-export.ts';

/**
 * `otel export`'s passes (docs/otel.md, "Export"): read the ledger after the cursor, plan the spans
 * the events close, send them, and move the cursor past those events only once the collector took
 * them. A collector that is down leaves the cursor where it was: the same events are read again
 * next pass, and nothing is lost or sent twice by us.
 */

/** Events read per pass. */
const BATCH_EVENTS = 500;

/** The ledger counter that holds an endpoint's cursor: the last seq whose spans it took. */
export function cursorName(endpoint: string): string {
	return `otel.export ${endpoint}`;
}

export type ExportPass = {
	/** sent: the collector took this pass's spans (or there were none); failed: it did not. */
	readonly state: 'sent' | 'failed' | 'idle';
	readonly spans: number;
	readonly events: number;
	readonly cursor: number;
	readonly message: string | null;
};

function lookupsFor(ledger: Ledger, host: string): SpanLookups {
	const eventsCache = new Map<string, readonly LedgerEvent[]>();
	const traces = new Map<string, TaskTrace>();
	const eventsOf = (taskId: string): readonly LedgerEvent[] => {
		let events = eventsCache.get(taskId);
		if (!events) {
			events = ledger.reader.eventsOf(taskId);
			eventsCache.set(taskId, events);
		}
		return events;
	};
	const orderTask = (orderId: string, depth = 0): string | null => {
		const opened = ledger.reader.firstEventOf(orderId, EventType.orderOpened);
		if (!opened) return null;
		if (opened.data.workerTask) return opened.data.workerTask;
		return opened.data.parent && depth < 16 ? orderTask(opened.data.parent, depth + 1) : null;
	};
	return {
		host,
		task: taskId => ledger.reader.task(taskId),
		eventsOf,
		preToolUse: toolUseId => ledger.reader.preToolUseOf(toolUseId),
		orderTask: orderId => orderTask(orderId),
		traceOf(taskId) {
			let found = traces.get(taskId);
			if (!found) {
				found = traceOfTask(taskId, id => traceFactsOf(ledger, id));
				traces.set(taskId, found);
			}
			return found;
		},
	};
}

export type LedgerExporter = {
	/** One batch: at most BATCH_EVENTS events after the cursor. */
	pass(): Promise<ExportPass>;
	cursor(): number;
};

export function createLedgerExporter(
	ledger: Ledger,
	sender: SpanSender,
	options: {readonly endpoint: string; readonly host: string; readonly startAfter: number | null},
): LedgerExporter {
	const name = cursorName(options.endpoint);
	const kept = (): number => ledger.reader.counter(name);
	let startAfter = options.startAfter;
	const cursor = (): number => startAfter ?? kept();
	return {
		cursor,
		async pass() {
			const from = cursor();
			const events = ledger.reader.eventsSince(from, BATCH_EVENTS);
			if (events.length === 0) return {state: 'idle', spans: 0, events: 0, cursor: from, message: null};
			const lookups = lookupsFor(ledger, options.host);
			const spans = events.flatMap(event => spansClosedBy(event, lookups));
			const failure = await sender.send(spans);
			if (failure !== null) return {state: 'failed', spans: spans.length, events: events.length, cursor: from, message: failure};
			const last = events.at(-1)?.seq ?? from;
			ledger.writer.bump(name, last - kept());
			startAfter = null;
			return {state: 'sent', spans: spans.length, events: events.length, cursor: last, message: null};
		},
	};
}
