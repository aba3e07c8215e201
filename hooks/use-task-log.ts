import {useEffect, type Dispatch} from 'react';
import type {LogReader, TaskLog} from '../src/core/board/log-view.ts';
import type {BoardAction} from '../src/core/board/state.ts';

const NO_READER: TaskLog = {source: 'none', origin: 'this board reads no logs', lines: [], note: null};

/** While the log view is open on `taskId`, keeps its lines current (one watch, one cleanup). */
export function useTaskLog(reader: LogReader | undefined, taskId: string | null, dispatch: Dispatch<BoardAction>): void {
	useEffect(() => {
		if (taskId === null) return;
		if (!reader) {
			dispatch({type: 'log-read', taskId, log: NO_READER});
			return;
		}
		return reader.watch(taskId, log => dispatch({type: 'log-read', taskId, log}));
	}, [reader, taskId, dispatch]);
}
