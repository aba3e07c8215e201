import {Box, Text} from 'ink';
import type {HelpScreen} from '../src/core/board/screen.ts';
import {CellTable} from './CellTable.tsx';
import {useToneColor} from './theme.ts';

type Props = {readonly help: HelpScreen};

/**
 * `?` help: every key from the one key table, with what it does (and what is not built yet), fitted
 * to the rows there are, each column a table of keys (docs/board.md, "Static tables"); where it is
 * taller than the screen, a window that scrolls, its last line saying which lines show. The help
 * bar below says how to close it.
 */
export function HelpPanel({help}: Props) {
	const toneColor = useToneColor();
	return (
		<Box flexDirection="column" flexGrow={1}>
			<Box flexDirection="row" gap={2}>
				{help.tables.map((table, index) => (
					<Box key={index} flexDirection="column" flexShrink={0}>
						<CellTable table={table} hasHeadings={help.hasTitle} keyColor={toneColor('info')} />
					</Box>
				))}
			</Box>
			{help.note === null ? null : <Text dimColor wrap="truncate-end">{`  ${help.note}`}</Text>}
		</Box>
	);
}
