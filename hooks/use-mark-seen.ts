import {useEffect, useRef} from 'react';
import {lookToRecord} from '../src/core/seen.ts';
import type {BoardTask} from '../src/core/board/state.ts';

/**
 * After each key the person presses, records a look at the task under the cursor when it is
 * finished work they have not seen (src/core/seen.ts). Once per task and end: the board shows it
 * seen when the ledger's next read brings the event back.
 */
export function useMarkSeen(
	presses: number,
	selected: BoardTask | undefined,
	person: string | undefined,
	markSeen: ((taskId: string, now: number) => void) | undefined,
): void {
	const latest = useRef(selected);
	latest.current = selected;
	const recorded = useRef(new Set<string>());
	// Run by the render that counted the press: its cursor is where that command left it.
	useEffect(() => {
		if (presses === 0 || !markSeen) return;
		const task = latest.current;
		const taskId = lookToRecord(task, person ?? null);
		if (taskId === null || !task) return;
		const once = `${taskId}\0${task.status}\0${task.endedAt ?? ''}`;
		if (recorded.current.has(once)) return;
		recorded.current.add(once);
		try {
			markSeen(taskId, Date.now());
		} catch {
			// A ledger that cannot take the write (a full disk): the task stays unseen, and says so by its mark.
			recorded.current.delete(once);
		}
	}, [presses, person, markSeen]);
}
