import {Box, Text} from 'ink';
import type {ScreenView} from '../src/core/board/screen.ts';
import {toneColor} from './theme.ts';

type Props = {readonly screen: Pick<ScreenView, 'bar' | 'notice' | 'prompt' | 'confirm' | 'selected'>};

/** The status line (a prompt, a confirmation or the last notice) and the help bar drawn from the key table. */
export function Footer({screen}: Props) {
	const {prompt, confirm, notice, bar} = screen;
	let status = <Text> </Text>;
	if (prompt) {
		status = (
			<Text>
				<Text bold>{prompt.label}</Text>
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
	} else if (notice) {
		status = (
			<Text color={toneColor(notice.tone)} wrap="truncate-end">
				{notice.text}
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
