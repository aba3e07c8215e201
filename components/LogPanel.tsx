import {Box, Text} from 'ink';
import type {ScreenView} from '../src/core/board/screen.ts';
import {useToneColor} from './theme.ts';

type Props = {readonly log: NonNullable<ScreenView['log']>};

/** The log view: the newest lines of a task's output (or an agent session's last messages), following new ones. */
export function LogPanel({log}: Props) {
	const toneColor = useToneColor();
	const {row} = log;
	const position =
		log.total === 0
			? ''
			: `lines ${log.start + 1}–${log.start + log.lines.length} of ${log.total} · ${log.isFollowing ? 'following new output' : 'G follows new output'}`;
	return (
		<Box flexDirection="column" flexGrow={1}>
			{row ? (
				<Text wrap="truncate-end">
					<Text bold>{`LOG ${row.id} `}</Text>
					<Text>{`“${row.title}” · ${row.source} · `}</Text>
					<Text color={toneColor(row.tone)}>{row.status}</Text>
					<Text>{` · ${row.idle}`}</Text>
				</Text>
			) : (
				<Text bold>LOG (task not found)</Text>
			)}
			<Text wrap="truncate-end" dimColor>
				{log.origin === null ? 'reading…' : `${log.origin}${log.note ? ` · ${log.note}` : ''}`}
			</Text>
			{log.lines.map((line, index) => (
				<Text key={log.start + index} wrap="truncate-end">
					{line === '' ? ' ' : line}
				</Text>
			))}
			{log.total === 0 && log.source !== null && log.source !== 'none' ? <Text dimColor>{'  nothing yet'}</Text> : null}
			<Box flexGrow={1} />
			<Text dimColor wrap="truncate-end">
				{position}
			</Text>
		</Box>
	);
}
