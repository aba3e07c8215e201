import {Box, Text} from 'ink';
import type {ScreenView} from '../src/core/board/screen.ts';
import type {TableView} from '../src/core/board/table-layout.ts';
import {CellTable} from './CellTable.tsx';
import {useToneColor} from './theme.ts';

type Props = {readonly timeline: NonNullable<ScreenView['timeline']>};

/** The drill-down: the task, its contract and evidence where the ledger holds them, and its events with heartbeats folded. */
export function TimelinePanel({timeline}: Props) {
	const toneColor = useToneColor();
	const {row} = timeline;
	return (
		<Box flexDirection="column" flexGrow={1}>
			{row ? (
				<Text wrap="truncate-end">
					<Text bold>{`TIMELINE ${row.id} `}</Text>
					<Text>{`“${row.title}” · ${row.source} · `}</Text>
					<Text color={toneColor(row.tone)}>{row.status}</Text>
					<Text>{` · ${row.idle}`}</Text>
				</Text>
			) : (
				<Text bold>{timeline.order ? `TIMELINE ${timeline.order}` : 'TIMELINE (task not found)'}</Text>
			)}
			{row ? (
				<Text
					wrap="truncate-end"
					dimColor
				>{`  age ${row.age} · ${row.progress} · tokens ${row.tokens} · cost ${row.cost}${row.burn ? ` · ${row.burn}` : ''} · pid ${row.pid}`}</Text>
			) : null}
			<Text wrap="truncate-end">
				<Text bold>contract: </Text>
				<Text dimColor={timeline.contract.length === 0}>
					{timeline.contract.length === 0 ? 'none recorded' : timeline.contract.join(' · ')}
				</Text>
			</Text>
			<Text wrap="truncate-end">
				<Text bold>evidence: </Text>
				<Text dimColor={timeline.evidence.length === 0}>
					{timeline.evidence.length === 0 ? 'none recorded' : timeline.evidence.join(' · ')}
				</Text>
			</Text>
			{timeline.worktree.map((line, index) => (
				<Text key={`worktree-${index}`} wrap="truncate-end">
					{index === 0 ? <Text bold>worktree: </Text> : null}
					<Text dimColor={index > 0}>{line}</Text>
				</Text>
			))}
			{timeline.acceptance.map((line, index) =>
				index === 0 ? (
					<Text key="acceptance" wrap="truncate-end">
						<Text bold>acceptance: </Text>
						<Text>{line}</Text>
					</Text>
				) : (
					<Text key={`acceptance-${index}`} wrap="truncate-end">{`  ${line}`}</Text>
				),
			)}
			{timeline.why ? (
				<Text wrap="truncate-end">
					<Text bold>why: </Text>
					<Text>{timeline.why}</Text>
				</Text>
			) : null}
			<TitledTable title="track record" table={timeline.record} />
			<TitledTable title="spend by model" table={timeline.spend.byModel} />
			<TitledTable title="spend by helper" table={timeline.spend.byHelper} />
			<Text
				dimColor
			>{`lines ${timeline.start + 1}–${timeline.start + timeline.lines.length} of ${timeline.total} (j/k scroll, esc back)`}</Text>
			{timeline.lines.map(line => (
				<Text key={line.key} wrap="truncate-end" dimColor={line.isFolded}>
					{`  ${line.time}  ${line.text}`}
				</Text>
			))}
		</Box>
	);
}

/** One of the drill-down's static tables under its title, with the rows left out said under it. */
function TitledTable({title, table}: {readonly title: string; readonly table: TableView | null}) {
	if (!table) return null;
	return (
		<Box flexDirection="column">
			<Text bold>{`${title}:`}</Text>
			<CellTable table={table} />
			{table.more > 0 ? <Text dimColor>{`  +${table.more} more`}</Text> : null}
		</Box>
	);
}
