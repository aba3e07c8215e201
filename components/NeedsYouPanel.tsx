import {Box, Text} from 'ink';
import type {ScreenView} from '../src/core/board/screen.ts';
import {toneColor} from './theme.ts';

type Props = {readonly queue: ScreenView['queue']; readonly width: number};

/** Needs you: the human queue, five a lane with a count of the rest; `k` acknowledges the entry under the cursor. */
export function NeedsYouPanel({queue, width}: Props) {
	const lines: {key: string; text: string; isSelected?: boolean; isHeading?: boolean; isDim?: boolean}[] = [];
	for (const lane of queue.lanes) {
		lines.push({key: `h-${lane.name}`, text: `${lane.name} (${lane.items.length + lane.more})`, isHeading: true});
		for (const item of lane.items) {
			lines.push({
				key: `${lane.name}-${item.taskId}`,
				text: item.text,
				isSelected: queue.isFocused && item.taskId === queue.selectedTaskId,
			});
		}
		if (lane.more > 0) lines.push({key: `m-${lane.name}`, text: `+${lane.more} more`, isDim: true});
	}
	if (lines.length === 0) lines.push({key: 'none', text: 'nothing needs you', isDim: true});
	const shown = lines.slice(0, Math.max(1, queue.height - 1));
	return (
		<Box flexDirection="column" width={width} height={queue.height} overflow="hidden">
			<Text bold color={queue.isFocused ? toneColor('accent') : toneColor(queue.total > 0 ? 'warn' : 'muted')}>
				{`NEEDS YOU (${queue.total})${queue.isFocused ? ' — k acknowledges, x sends back, tab moves on' : ''}`}
			</Text>
			{shown.map(line => (
				<Text key={line.key} wrap="truncate-end" bold={line.isHeading} dimColor={line.isDim} inverse={line.isSelected}>
					{line.isHeading ? ` ${line.text}` : `   ${line.text}`}
				</Text>
			))}
		</Box>
	);
}
