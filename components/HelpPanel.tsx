import {Box, Text} from 'ink';
import type {HelpLine} from '../src/core/board/keymap.ts';

type Props = {readonly lines: readonly HelpLine[]};

/** `?` help: every key from the one key table, with what it does (and what is not built yet). */
export function HelpPanel({lines}: Props) {
	return (
		<Box flexDirection="column" flexGrow={1}>
			<Text bold>KEYS</Text>
			{lines.map(line => (
				<Box key={`${line.keys}-${line.description}`}>
					<Box width={10} flexShrink={0}>
						<Text color="cyan">{`  ${line.keys}`}</Text>
					</Box>
					<Text wrap="truncate-end">{line.description}</Text>
				</Box>
			))}
			<Text dimColor>{'  esc or ? closes this help'}</Text>
		</Box>
	);
}
