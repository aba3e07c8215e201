import {Box, Text} from 'ink';

type Props = {readonly width: number; readonly isCompact: boolean};

/**
 * Reviews: latest verdicts. The review gate does not write verdicts to the ledger yet, so this
 * panel says plainly that there is nothing, and why.
 */
export function ReviewsPanel({width, isCompact}: Props) {
	if (isCompact)
		return (
			<Text dimColor wrap="truncate-end">
				REVIEWS: none in the ledger (review gate not built yet)
			</Text>
		);
	return (
		<Box flexDirection="column" width={width}>
			<Text bold dimColor>
				REVIEWS (0)
			</Text>
			<Text dimColor wrap="truncate-end">
				{'   none in the ledger'}
			</Text>
			<Text dimColor wrap="truncate-end">
				{'   (gate not built yet)'}
			</Text>
		</Box>
	);
}
