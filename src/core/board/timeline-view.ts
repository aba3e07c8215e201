import type {LedgerEvent} from '../events.ts';
import {formatDuration} from '../format.ts';
import type {Task} from '../task.ts';
import {describeEvent, foldHeartbeats} from '../timeline.ts';
import {toRowView, type TaskRowView} from './selectors.ts';

/** A timeline line, preformatted. */
export type TimelineLineView = {readonly key: string; readonly time: string; readonly text: string; readonly isFolded: boolean};

/** The drill-down: the task's row, its contract and evidence as the ledger holds them, its events. */
export type TimelineView = {
	readonly row: TaskRowView | null;
	readonly contract: readonly string[];
	readonly evidence: readonly string[];
	readonly lines: readonly TimelineLineView[];
};

const clock = (at: number): string => new Date(at).toISOString().slice(11, 19);

const isContract = (type: string): boolean => type.startsWith('contract.');
const isEvidence = (type: string): boolean =>
	type.startsWith('evidence.') || type.startsWith('handoff.') || type.includes('hand_in');

/** Builds the drill-down from a task's events, heartbeats folded into one line per run. */
export function selectTimeline(
	task: Task | undefined,
	events: readonly LedgerEvent[],
	now: number,
	stallSeconds?: number,
): TimelineView {
	const lines = foldHeartbeats(events).map((entry): TimelineLineView => {
		if (entry.kind === 'heartbeats') {
			const span = entry.to - entry.from;
			return {
				key: `hb-${entry.from}`,
				time: clock(entry.from),
				text: `${entry.count} heartbeat${entry.count === 1 ? '' : 's'}${span > 0 ? ` over ${formatDuration(span)}` : ''}`,
				isFolded: true,
			};
		}
		return {
			key: String(entry.event.seq),
			time: clock(entry.event.at),
			text: `${entry.event.source}: ${describeEvent(entry.event)}`,
			isFolded: false,
		};
	});
	return {
		row: task ? toRowView(task, now, stallSeconds) : null,
		contract: events.filter(event => isContract(event.type)).map(describeEvent),
		evidence: events.filter(event => isEvidence(event.type)).map(describeEvent),
		lines,
	};
}

/** The slice of timeline lines that fits `height` from `scroll`, clamped so the end stays reachable. */
export function windowTimeline(
	lines: readonly TimelineLineView[],
	scroll: number,
	height: number,
): {lines: readonly TimelineLineView[]; start: number} {
	const start = Math.max(0, Math.min(scroll, lines.length - height));
	return {lines: lines.slice(start, start + height), start};
}
