import {Box, Text} from 'ink';
import type {ScreenView} from '../src/core/board/screen.ts';
import {Footer} from './Footer.tsx';
import {HeldEffectsPanel} from './HeldEffectsPanel.tsx';
import {HelpPanel} from './HelpPanel.tsx';
import {LanesPanel} from './LanesPanel.tsx';
import {NeedsYouPanel} from './NeedsYouPanel.tsx';
import {ReviewsPanel} from './ReviewsPanel.tsx';
import {TaskDetail} from './TaskRow.tsx';
import {TimelinePanel} from './TimelinePanel.tsx';

type Props = {readonly screen: ScreenView};

/** The whole board for one frame: header, lanes (or timeline, or help), panels, footer. Renders only. */
export function BoardView({screen}: Props) {
	const {width, height} = screen;
	let body;
	if (screen.timeline) {
		body = <TimelinePanel timeline={screen.timeline} />;
	} else if (screen.help) {
		body = <HelpPanel lines={screen.help} />;
	} else {
		const side = Math.floor((width - 2) / 4);
		body = (
			<Box flexDirection="column" flexGrow={1}>
				<LanesPanel
					lanes={screen.lanes}
					selectedId={screen.selectedId}
					isWide={screen.isWideRows}
					width={width}
					isFocused={!screen.queue.isFocused}
					showHost={screen.showHost}
				/>
				{screen.isWideRows ? null : <TaskDetail row={screen.selected} />}
				{screen.isSideBySide ? (
					<Box flexDirection="row" gap={1}>
						<NeedsYouPanel queue={screen.queue} width={width - 2 * side - 2} />
						<ReviewsPanel width={side} isCompact={false} />
						<HeldEffectsPanel width={side} isCompact={false} />
					</Box>
				) : (
					<Box flexDirection="column">
						<NeedsYouPanel queue={screen.queue} width={width} />
						<ReviewsPanel width={width} isCompact />
						<HeldEffectsPanel width={width} isCompact />
					</Box>
				)}
			</Box>
		);
	}
	return (
		<Box flexDirection="column" width={width} height={height}>
			<Text wrap="truncate-end">
				<Text bold color="cyan">
					controlroom{' '}
				</Text>
				{screen.ledger === null ? null : <Text dimColor>{`${screen.ledger}  `}</Text>}
				<Text>{screen.header}</Text>
			</Text>
			{body}
			<Footer screen={screen} />
		</Box>
	);
}
