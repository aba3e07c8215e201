import {BoardCommand} from '../keymap.ts';
import type {BoardPanel} from './panel.ts';

/** Needs you: what waits on a person, by lane (reviews, needs, waiting), with its own cursor. */
export const NEEDS_YOU: BoardPanel = {
	name: 'needs-you',
	commands: [BoardCommand.focus, BoardCommand.acknowledge, BoardCommand.open],
	// The band it shares with Reviews and Held effects.
	rows: input => input.band.height,
	view({state, queue, band, isSideBySide}) {
		const queueItem = state.mode === 'queue' ? queue.order[state.queueIndex] : undefined;
		return {
			view: {
				queue: {
					lanes: queue.lanes,
					total: queue.total,
					selectedTaskId: queueItem?.taskId ?? null,
					isFocused: state.mode === 'queue',
					height: isSideBySide ? band.height : band.queueLines,
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
