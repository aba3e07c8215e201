import {Box, Text} from 'ink';
import type {ScreenView} from '../src/core/board/screen.ts';
import {useToneColor} from './theme.ts';

type Props = {readonly queue: ScreenView['queue']; readonly width: number};

/**
 * Needs you: the human queue, five a lane with a count of the rest, fitted to its height with a
 * last line saying what was left out (panels/needs-you.ts); `k` acknowledges the entry under the cursor.
 */
export function NeedsYouPanel({queue, width}: Props) {
	const toneColor = useToneColor();
	return (
		<Box flexDirection="column" width={width} height={queue.height} overflow="hidden">
			<Text
				bold
				wrap="truncate-end"
				color={queue.isFocused ? toneColor('accent') : toneColor(queue.total > 0 ? 'warn' : 'muted')}
			>
				{`NEEDS YOU (${queue.total})${queue.hint}`}
			</Text>
			{queue.total === 0 && queue.height > 1 ? <Text dimColor>{'   nothing needs you'}</Text> : null}
			{queue.lines.map(line => (
				<Text
					key={line.key}
					wrap="truncate-end"
					bold={line.kind === 'heading'}
					dimColor={line.kind === 'more'}
					inverse={queue.isFocused && line.isSelected === true}
				>
					{line.kind === 'heading' ? ` ${line.text}` : `   ${line.text}`}
				</Text>
			))}
		</Box>
	);
}
