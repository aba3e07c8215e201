import {Text} from 'ink';
import {memo} from 'react';
import {layoutRow, type RowColumns} from '../src/core/board/row-layout.ts';
import type {TaskRowView} from '../src/core/board/selectors.ts';
import {useToneColor} from './theme.ts';

type Props = {
	readonly row: TaskRowView;
	readonly isSelected: boolean;
	/** The columns shown and their widths, the same for every row on the screen. */
	readonly columns: RowColumns;
};

/** One task: id, title, source, status and health, age, idle, progress, tokens against budget, PID; `●` and bold while unseen. */
function TaskRowInner({row, isSelected, columns}: Props) {
	const toneColor = useToneColor();
	const layout = layoutRow(row, columns);
	return (
		<Text wrap="truncate-end" bold={isSelected || row.isUnseen === true}>
			<Text color={toneColor('info')}>{isSelected ? '› ' : row.isUnseen ? '● ' : '  '}</Text>
			{layout.before}
			<Text color={toneColor(row.tone)}>{layout.status}</Text>
			{layout.after}
		</Text>
	);
}

/** A memoized task row: it re-renders only when its own cells change. */
export const TaskRow = memo(TaskRowInner);

/** The selected task's other cells, on their own line, for screens too narrow for a wide row. */
export function TaskDetail({row}: {readonly row: TaskRowView | null}) {
	if (!row) return <Text dimColor> </Text>;
	return (
		<Text wrap="truncate-end" dimColor>
			{`  ↳ ${row.host === null ? '' : `${row.host} · `}${row.shownId === row.id || row.host !== null ? '' : `${row.id} · `}${row.source} · age ${row.age} · ${row.progress} · tokens ${row.tokens} · cost ${row.cost} · pid ${row.pid}`}
		</Text>
	);
}
