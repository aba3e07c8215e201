import {Box, Text} from 'ink';
import type {ScreenView} from '../src/core/board/screen.ts';
import {useToneColor} from './theme.ts';

type Props = {
	readonly effects: ScreenView['effects'];
	readonly width: number;
	/** One line (stacked layout without the focus): a summary instead of the list. */
	readonly isCompact: boolean;
};

/**
 * Held effects by order (tool, arguments on one line, age; `*` marks), then recent outcomes;
 * with the focus (tab), space marks, `a` approves, `x` sends the order back.
 */
export function HeldEffectsPanel({effects, width, isCompact}: Props) {
	const toneColor = useToneColor();
	const title = `HELD EFFECTS (${effects.heldCount})${effects.markedCount > 0 ? ` · ${effects.markedCount} marked` : ''}`;
	const titleColor = effects.isFocused ? toneColor('accent') : toneColor(effects.heldCount > 0 ? 'warn' : 'muted');
	if (isCompact) {
		const index = effects.lines.findIndex(line => line.kind === 'effect' || line.kind === 'outcome');
		const first = effects.lines[index];
		const args = effects.lines[index + 1]?.kind === 'args' ? `  ${effects.lines[index + 1]?.text ?? ''}` : '';
		return (
			<Text wrap="truncate-end" bold={effects.heldCount > 0} color={titleColor}>
				{`${title}${effects.hint}: ${first ? first.text.trim() : 'none'}${args}`}
			</Text>
		);
	}
	const shown = effects.lines.slice(0, Math.max(1, effects.height - 1));
	return (
		<Box flexDirection="column" width={width} height={effects.height} overflow="hidden">
			<Text bold color={titleColor} wrap="truncate-end">
				{`${title}${effects.hint}`}
			</Text>
			{shown.length === 0 ? (
				<Text dimColor wrap="truncate-end">
					{'   nothing held'}
				</Text>
			) : null}
			{shown.map(line =>
				line.kind === 'order' ? (
					<Text key={line.key} bold wrap="truncate-end">{` ${line.text}`}</Text>
				) : line.kind === 'args' ? (
					<Text key={line.key} wrap="truncate-end" dimColor>{`      ${line.text}`}</Text>
				) : line.kind === 'effect' ? (
					<Text
						key={line.key}
						wrap="truncate-end"
						inverse={line.isSelected}
						color={line.isMarked ? toneColor('accent') : undefined}
					>
						{`  ${line.text}`}
					</Text>
				) : (
					<Text key={line.key} wrap="truncate-end" color={toneColor(line.tone)}>
						{`  ${line.text}`}
					</Text>
				),
			)}
		</Box>
	);
}
