import {useInput} from 'ink';
import {matchBinding, type BoardMode, type KeyBinding} from '../src/core/board/keymap.ts';

type Handlers = {
	/** A key from the table was pressed in the current mode. */
	readonly onCommand: (binding: KeyBinding) => void;
	/** The text of the open prompt changed (input mode only). */
	readonly onText: (text: string) => void;
	/** Enter in a prompt. */
	readonly onSubmit: () => void;
};

/** The board's one input handler: table keys in every mode, plain typing in a prompt. */
export function useKeymap(mode: BoardMode, promptText: string, handlers: Handlers, isActive = true): void {
	useInput(
		(input, key) => {
			if (mode === 'input') {
				if (key.return) return handlers.onSubmit();
				if (key.backspace || key.delete) return handlers.onText(promptText.slice(0, -1));
				if (!key.escape && !key.ctrl && !key.meta && input && !key.upArrow && !key.downArrow && !key.tab) {
					return handlers.onText(promptText + input);
				}
			}
			// A burst (key repeat, or keys sent together) arrives as one string: read it key by key.
			const isBurst = input.length > 1 && !key.ctrl && !key.meta && /^[\x20-\x7e\r]+$/.test(input);
			for (const char of isBurst ? [...input] : [input]) {
				const binding = matchBinding(char === '\r' ? '' : char, char === '\r' ? {...key, return: true} : key, mode);
				if (binding) handlers.onCommand(binding);
			}
		},
		{isActive},
	);
}
