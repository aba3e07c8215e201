import {assertNever} from '../assert-never.ts';
import type {BoardLane} from '../snapshot.ts';
import type {Health, Status} from '../status.ts';

/** The named tones the board colours with; components/theme.ts maps them to colours. */
export const TONES = ['ok', 'warn', 'error', 'muted', 'info', 'accent'] as const;
export type Tone = (typeof TONES)[number];

/** The tone of a task's status and health: stalled warns, lost and failed are errors. */
export function statusTone(status: Status, health: Health | null): Tone {
	switch (status) {
		case 'running':
		case 'untracked':
			return health === 'stalled' ? 'warn' : status === 'untracked' ? 'info' : 'ok';
		case 'registered':
			return 'info';
		case 'done':
		case 'merged':
			return 'muted';
		case 'vanished':
			return 'info';
		case 'stopped':
			return 'warn';
		case 'failed':
		case 'lost':
			return 'error';
		default:
			return assertNever(status);
	}
}

/** The tone of a lane heading. */
export function laneTone(lane: BoardLane): Tone {
	switch (lane) {
		case 'running':
			return 'ok';
		case 'stalled':
			return 'warn';
		case 'lost':
			return 'error';
		case 'untracked':
			return 'info';
		case 'ended':
			return 'muted';
		default:
			return assertNever(lane);
	}
}
