import {Box, Text} from 'ink';
import {cellWidth} from '../src/core/cell-width.ts';
import type {ScreenView} from '../src/core/board/screen.ts';
import {useToneColor} from './theme.ts';

type Props = {readonly screen: Pick<ScreenView, 'bar' | 'notice' | 'prompt' | 'confirm' | 'filter' | 'width'>};

/**
 * The status line and the help bar drawn from the key table. The status line is the prompt being
 * typed, or a question, or else the filter in force (first, so no width hides it) and the last notice.
 */
export function Footer({screen}: Props) {
	const toneColor = useToneColor();
	const {prompt, confirm, notice, bar, filter} = screen;
	// A notice wider than the screen (a refusal at 80 columns) takes the help bar's line too, until
	// the next key replaces it: a reason cut in the middle says nothing.
	const filterText = filter === null ? '' : `/${filter} (esc clears)  `;
	if (!prompt && !confirm && notice && cellWidth(filterText + notice.text) > screen.width) {
		return (
			<Box flexDirection="column" height={2} overflow="hidden">
				<Text wrap="wrap" color={toneColor(notice.tone)}>
					{filterText + notice.text}
				</Text>
			</Box>
		);
	}
	let status = <Text> </Text>;
	if (prompt) {
		status = (
			<Text wrap="truncate-start">
				<Text bold color={toneColor('accent')}>
					{prompt.label}
				</Text>
				<Text>{prompt.text}</Text>
				<Text inverse> </Text>
			</Text>
		);
	} else if (confirm) {
		status = (
			<Text color={toneColor('warn')} bold wrap="truncate-end">
				{confirm}
			</Text>
		);
	} else if (filter !== null || notice) {
		status = (
			<Text wrap="truncate-end">
				{filter === null ? null : (
					<Text bold color={toneColor('accent')}>
						{`/${filter}`}
						<Text dimColor bold={false}>{` (esc clears)${notice ? '  ' : ''}`}</Text>
					</Text>
				)}
				{notice ? <Text color={toneColor(notice.tone)}>{notice.text}</Text> : null}
			</Text>
		);
	}
	return (
		<Box flexDirection="column">
			{status}
			<Text wrap="truncate-end">
				{bar.map(item => (
					<Text key={`${item.keys}-${item.label}`} dimColor={item.isDisabled}>
						{item.keys ? <Text bold={!item.isDisabled}>{item.keys}</Text> : null}
						{`${item.keys ? ' ' : ''}${item.label}  `}
					</Text>
				))}
			</Text>
		</Box>
	);
}
