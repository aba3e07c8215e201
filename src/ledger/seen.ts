import {EventType} from '../core/events.ts';
import type {Ledger} from './open-ledger.ts';

/** Records that `by` looked at a finished task (docs/tmux.md, "Seen and unseen"). */
export function recordSeen(ledger: Ledger, taskId: string, by: string, at: number, source: string): void {
	ledger.writer.append([{taskId, type: EventType.seen, at, source, data: {by}}]);
}
