import {Box, Text} from 'ink';
import type {ScreenView} from '../src/core/board/screen.ts';
import {laneTone} from '../src/core/board/tone.ts';
import {TaskRow} from './TaskRow.tsx';
import {toneColor} from './theme.ts';

type Props = {
	readonly lanes: ScreenView['lanes'];
	readonly selectedId: string | null;
	readonly isWide: boolean;
	readonly width: number;
	/** Dims the cursor while Needs you has the focus. */
	readonly isFocused: boolean;
	/** A host column, on a fleet board with more than one host. */
	readonly showHost?: boolean;
};

/** The lanes: running, stalled, lost, untracked, recently ended, windowed to the screen. */
export function LanesPanel({lanes, selectedId, isWide, width, isFocused, showHost = false}: Props) {
	return (
		<Box flexDirection="column" flexShrink={0}>
			{lanes.above > 0 ? <Text dimColor>{`  ↑ ${lanes.above} more lines`}</Text> : null}
			{lanes.lines.slice(lanes.above > 0 ? 1 : 0, lanes.below > 0 ? -1 : undefined).map(line => {
				switch (line.kind) {
					case 'lane':
						return (
							<Text key={`lane-${line.lane}`} bold color={toneColor(laneTone(line.lane))}>
								{`${line.title} (${line.count})`}
							</Text>
						);
					case 'empty':
						return (
							<Text key={`empty-${line.lane}`} dimColor>
								{'  none'}
							</Text>
						);
					case 'row':
						return (
							<TaskRow
								key={line.row.id}
								row={line.row}
								isSelected={isFocused && line.row.id === selectedId}
								isWide={isWide}
								width={width}
								showHost={showHost}
							/>
						);
				}
			})}
			{lanes.below > 0 ? <Text dimColor>{`  ↓ ${lanes.below} more lines`}</Text> : null}
		</Box>
	);
}
