import {Box, Text} from 'ink';
import type {ScreenView} from '../src/core/board/screen.ts';
import {useToneColor} from './theme.ts';

type Props = {readonly approval: NonNullable<ScreenView['approval']>};

/**
 * The approval confirmation: every held call `y` would run, once each, in order, whole (every
 * argument, wrapped, escaped); when it is longer than the screen it scrolls, and says where it is.
 */
export function ApprovalPanel({approval}: Props) {
	const toneColor = useToneColor();
	const {count, lines, start, total, scrollMax} = approval;
	return (
		<Box flexDirection="column" flexGrow={1} overflow="hidden">
			<Text
				bold
				color={toneColor('warn')}
			>{`APPROVE ${count} HELD EFFECT${count === 1 ? '' : 'S'}: each runs once, in order`}</Text>
			{lines.map((line, index) => (
				<Text key={start + index}>{`  ${line}`}</Text>
			))}
			{scrollMax > 0 ? (
				<Text dimColor>{`  lines ${start + 1}–${start + lines.length} of ${total} · j/k, PgDn/PgUp scroll`}</Text>
			) : null}
		</Box>
	);
}
