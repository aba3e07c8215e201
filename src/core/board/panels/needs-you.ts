import {BoardCommand, type KeyWords} from '../keymap.ts';
import type {QueueLine} from '../screen-view.ts';
import type {QueueLaneView} from '../selectors.ts';
import type {BoardPanel, PanelInput} from './panel.ts';

/** Every line of Needs you under its title: each lane's heading, its entries, and its `+N more`. */
function allLines(lanes: readonly QueueLaneView[], selected: string | null): QueueLine[] {
	return lanes.flatMap((lane): QueueLine[] => [
		{key: `h-${lane.name}`, kind: 'heading', lane: lane.name, text: `${lane.name} (${lane.items.length + lane.more})`},
		...lane.items.map((item): QueueLine => ({
			key: `${lane.name}-${item.taskId}`,
			kind: 'item',
			lane: lane.name,
			text: item.text,
			isSelected: item.taskId === selected,
		})),
		...(lane.more > 0 ? [{key: `m-${lane.name}`, kind: 'more', lane: lane.name, text: `+${lane.more} more`} as const] : []),
	]);
}

/** What lines left out of Needs you hold, lane by lane: `+3 more: needs 1 · waiting 2`. */
function leftOutLine(hidden: readonly QueueLine[], lanes: readonly QueueLaneView[]): QueueLine {
	const counts = new Map<string, number>();
	for (const line of hidden) {
		const more = lanes.find(lane => lane.name === line.lane)?.more ?? 0;
		const count = line.kind === 'item' ? 1 : line.kind === 'more' ? more : 0;
		if (count > 0) counts.set(line.lane, (counts.get(line.lane) ?? 0) + count);
	}
	const total = [...counts.values()].reduce((sum, count) => sum + count, 0);
	const text = `+${total} more: ${[...counts].map(([lane, count]) => `${lane} ${count}`).join(' · ')}`;
	return {key: 'left-out', kind: 'more', lane: '', text};
}

/**
 * Needs you's lines for `rows` rows under its title: all of them where they fit; else a window
 * that keeps the entry under the cursor, and whose last line says what it left out, lane by lane.
 */
export function queueLines(lanes: readonly QueueLaneView[], selected: string | null, rows: number): QueueLine[] {
	// No rows under its title (Decisions took them on a short screen): the title's count says it all.
	if (rows <= 0) return [];
	const lines = allLines(lanes, selected);
	const room = rows;
	if (lines.length <= room) return lines;
	const shown = Math.max(1, room - 1);
	// The cursor's entry (without a cursor, the first entry: the most pressing lane's), with its
	// lane's heading above it where there is room.
	const selectedAt = lines.findIndex(line => line.isSelected === true);
	const at =
		selectedAt >= 0
			? selectedAt
			: Math.max(
					0,
					lines.findIndex(line => line.kind === 'item'),
				);
	const start = Math.max(0, Math.min(at - Math.floor(shown / 2), lines.length - shown));
	let end = start + shown;
	// A lane's heading at the bottom edge with its entries all left out says nothing: the last line counts them.
	while (end - 1 > at && lines[end - 1]?.kind === 'heading') end -= 1;
	const window = lines.slice(start, end);
	const hidden = [...lines.slice(0, start), ...lines.slice(end)];
	return [...window, leftOutLine(hidden, lanes)];
}

/** Needs you's title words: what its keys do while it has the focus (none that act on a read-only board). */
function hintOf(keys: KeyWords, isFocused: boolean, isReadOnly: boolean): string {
	if (!isFocused) return '';
	if (isReadOnly) return ` — ${keys[BoardCommand.focus]} moves on`;
	return ` — ${keys[BoardCommand.acknowledge]} acknowledges, ${keys[BoardCommand.sendBack]} sends back, ${keys[BoardCommand.focus]} moves on`;
}

/** Needs you: what waits on a person, by lane (reviews, needs, waiting), with its own cursor. */
export const NEEDS_YOU: BoardPanel = {
	name: 'needs-you',
	commands: [BoardCommand.focus, BoardCommand.acknowledge, BoardCommand.open],
	// The band it shares with Reviews and Held effects.
	rows: input => input.band.height,
	view({state, queue, band, isSideBySide, keys, options}: PanelInput) {
		const isFocused = state.mode === 'queue';
		const queueItem = isFocused ? queue.order[state.queueIndex] : undefined;
		const height = isSideBySide ? band.height : band.queueLines;
		return {
			view: {
				queue: {
					lanes: queue.lanes,
					lines: queueLines(queue.lanes, queueItem?.taskId ?? null, height - 1),
					total: queue.total,
					selectedTaskId: queueItem?.taskId ?? null,
					isFocused,
					height,
					hint: hintOf(keys, isFocused, options.isReadOnly === true),
				},
				queueOrder: queue.order.map(item => ({
					taskId: item.taskId,
					at: item.at,
					lane: item.lane,
					...(item.about === undefined ? {} : {about: item.about}),
				})),
			},
			keys: {off: queue.order.length === 0 ? [BoardCommand.acknowledge] : []},
		};
	},
};
