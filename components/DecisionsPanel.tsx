import {Box, Text} from 'ink';
import type {ScreenView} from '../src/core/board/screen.ts';
import {useToneColor} from './theme.ts';

type Props = {readonly decisions: NonNullable<ScreenView['decisions']>; readonly width: number};

/**
 * DECISIONS: every question an agent waits on, oldest first, one line each (who asks, the tool, its
 * arguments cut at the edge); with the focus (d or tab), enter shows one whole, a allows, x denies
 * (the title names the keys in force: panels/decisions.ts).
 */
export function DecisionsPanel({decisions, width}: Props) {
	const toneColor = useToneColor();
	const {lines, count, start, isFocused, height, hint} = decisions;
	const shown = lines.length < count ? ` · ${start + 1}–${start + lines.length} shown` : '';
	return (
		<Box flexDirection="column" width={width} height={height} overflow="hidden">
			<Text bold color={isFocused ? toneColor('accent') : toneColor('warn')} wrap="truncate-end">
				{`DECISIONS (${count})${shown}${hint}`}
			</Text>
			{lines.map(line => (
				<Text key={line.id} wrap="truncate-end" inverse={line.isSelected}>
					{`${line.isSelected ? ' › ' : '   '}${line.text}`}
				</Text>
			))}
		</Box>
	);
}
