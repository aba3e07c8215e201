import {Box, Text} from 'ink';
import type {ReviewsView} from '../src/core/board/reviews-view.ts';
import {useToneColor} from './theme.ts';

type Props = {
	readonly reviews: ReviewsView;
	readonly width: number;
	/** Lines the panel may use, its heading included (side by side); ignored when compact. */
	readonly height: number;
	/** One line under Needs you, on a narrow screen. */
	readonly isCompact: boolean;
};

/** Reviews: the latest verdicts, newest first, INVALID and STOPPED as such, a disagreement labelled. */
export function ReviewsPanel({reviews, width, height, isCompact}: Props) {
	const toneColor = useToneColor();
	if (isCompact) {
		const first = reviews.rows[0];
		return (
			<Text wrap="truncate-end">
				<Text bold dimColor={!first}>{`REVIEWS (${reviews.total})`}</Text>
				{first ? <Text color={toneColor(first.tone)}>{` ${first.text}`}</Text> : <Text dimColor> no verdicts yet</Text>}
				{reviews.total > 1 ? <Text dimColor>{`  +${reviews.total - 1} more`}</Text> : null}
			</Text>
		);
	}
	const room = Math.max(1, height - 1);
	const shown = reviews.rows.length > room ? reviews.rows.slice(0, room - 1) : reviews.rows;
	const more = reviews.rows.length - shown.length;
	return (
		<Box flexDirection="column" width={width} height={height} overflow="hidden">
			<Text bold dimColor={reviews.total === 0}>{`REVIEWS (${reviews.total})`}</Text>
			{reviews.total === 0 ? (
				<Text dimColor wrap="truncate-end">
					{'   no verdicts yet'}
				</Text>
			) : null}
			{shown.map(row => (
				<Text key={row.key} color={toneColor(row.tone)} wrap="truncate-end">
					{`   ${row.text}`}
				</Text>
			))}
			{more > 0 ? <Text dimColor>{`   +${more} more`}</Text> : null}
		</Box>
	);
}
