import {Box, Text} from 'ink';

type Props = {readonly width: number; readonly isCompact: boolean};

/**
 * Held effects, per order with their arguments. The effect gate does not hold effects in the ledger
 * yet, so this panel says plainly that there is nothing, and why.
 */
export function HeldEffectsPanel({width, isCompact}: Props) {
	if (isCompact)
		return (
			<Text dimColor wrap="truncate-end">
				HELD EFFECTS: none in the ledger (effect gate not built yet)
			</Text>
		);
	return (
		<Box flexDirection="column" width={width}>
			<Text bold dimColor>
				HELD EFFECTS (0)
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
