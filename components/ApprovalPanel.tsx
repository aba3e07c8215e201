import {Box, Text} from 'ink';

type Props = {readonly lines: readonly string[]};

/** The approval confirmation: every held effect `y` would run, once each, in order. */
export function ApprovalPanel({lines}: Props) {
	return (
		<Box flexDirection="column" flexGrow={1} overflow="hidden">
			<Text
				bold
				color="yellow"
			>{`APPROVE ${lines.length} HELD EFFECT${lines.length === 1 ? '' : 'S'}: each runs once, in order`}</Text>
			{lines.map(line => (
				<Text key={line} wrap="truncate-end">{`  ${line}`}</Text>
			))}
		</Box>
	);
}
