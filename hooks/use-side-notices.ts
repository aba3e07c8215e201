import {useEffect, type Dispatch} from 'react';
import type {NoticeSource} from '../src/core/board/notice-channel.ts';
import type {BoardAction} from '../src/core/board/state.ts';

/** Puts the notices of what runs beside the board (its OTLP receiver) on the notice line. */
export function useSideNotices(source: NoticeSource | undefined, dispatch: Dispatch<BoardAction>): void {
	useEffect(() => source?.subscribe(notice => dispatch({type: 'notify', notice})), [source, dispatch]);
}
