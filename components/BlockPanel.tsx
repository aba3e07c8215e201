import {Box, Text} from 'ink';
import type {PanelBlock} from '../src/core/board/screen-view.ts';
import {useToneColor} from './theme.ts';

type Props = {readonly block: PanelBlock; readonly width: number};

/**
 * A panel whose view model is a title and toned lines (PanelBlock): every such panel is drawn
 * here, so a new panel needs no component of its own (docs/architecture.md, "A panel").
 */
export function BlockPanel({block, width}: Props) {
	const toneColor = useToneColor();
	return (
		<Box flexDirection="column" width={width} height={block.height} overflow="hidden">
			<Text bold color={toneColor(block.isFocused ? 'accent' : 'info')} wrap="truncate-end">
				{block.title}
			</Text>
			{block.lines.map((line, index) => (
				<Text key={index} wrap="truncate-end" {...(line.tone === null ? {} : {color: toneColor(line.tone)})}>
					{line.text}
				</Text>
			))}
		</Box>
	);
}
