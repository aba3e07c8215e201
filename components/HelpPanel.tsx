import {Box, Text} from 'ink';
import type {HelpScreen} from '../src/core/board/screen.ts';

type Props = {readonly help: HelpScreen};

/**
 * `?` help: every key from the one key table, with what it does (and what is not built yet), fitted
 * to the rows there are. The help bar below says how to close it.
 */
export function HelpPanel({help}: Props) {
	return (
		<Box flexDirection="column" flexGrow={1}>
			{help.hasTitle ? <Text bold>KEYS</Text> : null}
			<Box flexDirection="row" gap={2}>
				{help.columns.map((column, index) => (
					<Box key={index} flexDirection="column" flexGrow={1} flexBasis={0}>
						{column.map(line => (
							<Box key={`${line.keys}-${line.description}`} flexShrink={0}>
								<Box width={13} flexShrink={0}>
									<Text color="cyan">{`  ${line.keys}`}</Text>
								</Box>
								<Text wrap="truncate-end">{line.description}</Text>
							</Box>
						))}
					</Box>
				))}
			</Box>
			{help.more > 0 ? <Text dimColor>{`  ↓ ${help.more} more keys: a taller terminal lists them all`}</Text> : null}
		</Box>
	);
}
