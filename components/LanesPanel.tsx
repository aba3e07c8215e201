import {Box, Text} from 'ink';
import type {ScreenView} from '../src/core/board/screen.ts';
import {laneTone} from '../src/core/board/tone.ts';
import {TaskRow} from './TaskRow.tsx';
import {useToneColor} from './theme.ts';

type Props = {
	readonly lanes: ScreenView['lanes'];
	readonly selectedId: string | null;
	/** Dims the cursor while Needs you has the focus. */
	readonly isFocused: boolean;
};

/** The lanes: running, stalled, lost, untracked, recently ended, windowed to the screen. */
export function LanesPanel({lanes, selectedId, isFocused}: Props) {
	const toneColor = useToneColor();
	return (
		<Box flexDirection="column" flexShrink={0}>
			<Text dimColor bold wrap="truncate-end">
				{lanes.headings}
			</Text>
			{lanes.above === null ? null : <Text dimColor wrap="truncate-end">{`  ${lanes.above}`}</Text>}
			{lanes.lines.map(line =>
				line.kind === 'lane' ? (
					<Text key={`lane-${line.lane}`} bold color={toneColor(laneTone(line.lane))}>
						{`${line.title} (${line.count})`}
						{line.count === 0 ? (
							<Text dimColor bold={false}>
								{'  none'}
							</Text>
						) : null}
					</Text>
				) : (
					<TaskRow
						key={line.row.id}
						row={line.row}
						isSelected={isFocused && line.row.id === selectedId}
						columns={lanes.columns}
					/>
				),
			)}
			{lanes.below === null ? null : <Text dimColor wrap="truncate-end">{`  ${lanes.below}`}</Text>}
		</Box>
	);
}
