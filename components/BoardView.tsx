import {Box, Text} from 'ink';
import type {ScreenView} from '../src/core/board/screen.ts';
import {ApprovalPanel} from './ApprovalPanel.tsx';
import {BlockPanel} from './BlockPanel.tsx';
import {DecisionsPanel} from './DecisionsPanel.tsx';
import {Footer} from './Footer.tsx';
import {HeldEffectsPanel} from './HeldEffectsPanel.tsx';
import {HelpPanel} from './HelpPanel.tsx';
import {LanesPanel} from './LanesPanel.tsx';
import {LogPanel} from './LogPanel.tsx';
import {NeedsYouPanel} from './NeedsYouPanel.tsx';
import {QuestionPanel} from './QuestionPanel.tsx';
import {ReviewsPanel} from './ReviewsPanel.tsx';
import {TaskDetail} from './TaskRow.tsx';
import {TimelinePanel} from './TimelinePanel.tsx';
import {useToneColor} from './theme.ts';

type Props = {readonly screen: ScreenView};

/** The whole board for one frame: header, lanes (or a timeline, a log, help), panels, footer. Renders only. */
export function BoardView({screen}: Props) {
	const toneColor = useToneColor();
	const {width, height} = screen;
	let body;
	if (screen.log) {
		body = <LogPanel log={screen.log} />;
	} else if (screen.timeline) {
		body = <TimelinePanel timeline={screen.timeline} />;
	} else if (screen.help) {
		body = <HelpPanel help={screen.help} />;
	} else if (screen.approval) {
		body = <ApprovalPanel approval={screen.approval} />;
	} else if (screen.question) {
		body = <QuestionPanel question={screen.question} />;
	} else {
		const widths = screen.panelWidths;
		body = (
			<Box flexDirection="column" flexGrow={1}>
				<LanesPanel lanes={screen.lanes} selectedId={screen.selectedId} isFocused={!screen.queue.isFocused} />
				{screen.isWideRows ? null : <TaskDetail row={screen.selected} />}
				{screen.isSideBySide ? (
					<Box flexDirection="row" gap={1}>
						<NeedsYouPanel queue={screen.queue} width={widths.queue} />
						<ReviewsPanel reviews={screen.reviews} width={widths.reviews} height={screen.queue.height} isCompact={false} />
						<HeldEffectsPanel effects={screen.effects} width={widths.effects} isCompact={false} />
					</Box>
				) : (
					<Box flexDirection="column">
						<NeedsYouPanel queue={screen.queue} width={width} />
						<ReviewsPanel reviews={screen.reviews} width={width} height={1} isCompact />
						<HeldEffectsPanel effects={screen.effects} width={width} isCompact={!screen.effects.isFocused} />
					</Box>
				)}
				{screen.decisions ? <DecisionsPanel decisions={screen.decisions} width={width} /> : null}
				{screen.blocks.map(block => (
					<BlockPanel key={block.name} block={block} width={width} />
				))}
			</Box>
		);
	}
	return (
		<Box flexDirection="column" width={width} height={height}>
			<Box width={width}>
				<Box flexGrow={1} flexShrink={1}>
					<Text wrap="truncate-end">
						<Text bold color={toneColor('info')}>
							controlroom{' '}
						</Text>
						{screen.isReadOnly ? <Text color={toneColor('warn')}>{'read-only  '}</Text> : null}
						{screen.ledger === null ? null : <Text dimColor>{`${screen.ledger}  `}</Text>}
						<Text>{screen.header.counts}</Text>
						{screen.header.burn ? <Text dimColor>{` · ${screen.header.burn}`}</Text> : null}
					</Text>
				</Box>
				<Box flexShrink={0} marginLeft={1}>
					<Text color={toneColor('info')}>{screen.header.sort}</Text>
				</Box>
			</Box>
			{screen.past ? (
				<Text color={toneColor(screen.past.isNow ? 'info' : 'accent')} inverse bold wrap="truncate-end">
					{screen.past.text}
				</Text>
			) : null}
			{screen.alerts.map(alert => (
				<Text key={alert} color={toneColor('error')} bold wrap="truncate-end">
					{`⚠ ${alert}`}
				</Text>
			))}
			{body}
			<Footer screen={screen} />
		</Box>
	);
}
