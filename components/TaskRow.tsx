import {Box, Text} from 'ink';
import {memo} from 'react';
import type {TaskRowView} from '../src/core/board/selectors.ts';
import {toneColor} from './theme.ts';

/** Column widths of a task row; the title takes what is left. */
export const COLUMNS = {marker: 2, id: 15, source: 9, status: 18, age: 5, idle: 18, progress: 22, tokens: 18, pid: 11} as const;

type Props = {
	readonly row: TaskRowView;
	readonly isSelected: boolean;
	/** Every column on one line; otherwise id, title, status, idle and (when it fits) progress. */
	readonly isWide: boolean;
	readonly width: number;
};

function Cell({width, children, color, isBold}: {readonly width: number; readonly children: string; readonly color?: string; readonly isBold?: boolean}) {
	return (
		<Box width={width} flexShrink={0} marginRight={1}>
			<Text wrap="truncate-end" color={color} bold={isBold}>
				{children}
			</Text>
		</Box>
	);
}

/** One task: id, title, source, status and health, age, idle, progress, tokens against budget, PID. */
function TaskRowInner({row, isSelected, isWide, width}: Props) {
	const showProgress = isWide || width >= 100;
	const fixed =
		COLUMNS.marker + COLUMNS.id + COLUMNS.status + COLUMNS.idle + 4 +
		(showProgress ? COLUMNS.progress + 1 : 0) +
		(isWide ? COLUMNS.source + COLUMNS.age + COLUMNS.tokens + COLUMNS.pid + 4 : 0);
	const titleWidth = Math.max(6, width - fixed);
	return (
		<Box width={width}>
			<Box width={COLUMNS.marker} flexShrink={0}>
				<Text color="cyan">{isSelected ? '›' : ' '}</Text>
			</Box>
			<Cell width={COLUMNS.id} isBold={isSelected}>{row.id}</Cell>
			<Cell width={titleWidth} isBold={isSelected}>{row.title}</Cell>
			{isWide ? <Cell width={COLUMNS.source}>{row.source}</Cell> : null}
			<Cell width={COLUMNS.status} color={toneColor(row.tone)}>{row.status}</Cell>
			{isWide ? <Cell width={COLUMNS.age}>{row.age}</Cell> : null}
			<Cell width={COLUMNS.idle}>{row.idle}</Cell>
			{showProgress ? <Cell width={COLUMNS.progress}>{row.progress}</Cell> : null}
			{isWide ? <Cell width={COLUMNS.tokens}>{`tokens ${row.tokens}`}</Cell> : null}
			{isWide ? <Cell width={COLUMNS.pid}>{`pid ${row.pid}`}</Cell> : null}
		</Box>
	);
}

/** A memoized task row: it re-renders only when its own cells change. */
export const TaskRow = memo(TaskRowInner);

/** The selected task's other cells, on their own line, for screens too narrow for a wide row. */
export function TaskDetail({row}: {readonly row: TaskRowView | null}) {
	if (!row) return <Text dimColor> </Text>;
	return (
		<Text wrap="truncate-end" dimColor>
			{`  ↳ ${row.source} · age ${row.age} · ${row.progress} · tokens ${row.tokens} · pid ${row.pid}`}
		</Text>
	);
}
