import {Box, Text} from 'ink';
import type {ScreenView} from '../src/core/board/screen.ts';
import {useToneColor} from './theme.ts';

type Props = {readonly question: NonNullable<ScreenView['question']>};

/**
 * One question whole (docs/decisions.md): its drill-in, or the confirmation `a` shows before `y`
 * allows it, every argument in full, wrapped and escaped; when longer than the screen it scrolls.
 */
export function QuestionPanel({question}: Props) {
	const toneColor = useToneColor();
	const {id, isConfirm, lines, start, total, scrollMax} = question;
	return (
		<Box flexDirection="column" flexGrow={1} overflow="hidden">
			<Text bold color={toneColor('warn')} wrap="truncate-end">
				{isConfirm
					? `ALLOW ${id}: the agent runs exactly this call, once`
					: `QUESTION ${id}: a allows (shown whole first), x denies, enter opens its task`}
			</Text>
			{lines.map((line, index) => (
				<Text key={start + index} wrap="truncate-end">{`  ${line}`}</Text>
			))}
			{scrollMax > 0 ? (
				<Text
					dimColor
					wrap="truncate-end"
				>{`  lines ${start + 1}–${start + lines.length} of ${total} · j/k, PgDn/PgUp scroll`}</Text>
			) : null}
		</Box>
	);
}
