import {useInput} from 'ink';
import {useEffect, useReducer, useRef} from 'react';
import {BoardCommand, matchBinding, type BoardMode, type KeyBinding} from '../src/core/board/keymap.ts';

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
	// Read the latest mode and handlers at key time: a key typed right after a render must not reach
	// the previous render's handler (Ink re-subscribes useInput in a passive effect).
	const latest = useRef({mode, promptText, handlers});
	latest.current = {mode, promptText, handlers};
	// The rest of a burst, read once the render its previous key caused has committed. A timer is
	// not enough: React's scheduler may yield on a loaded machine, and a due timer then runs first.
	const burstRest = useRef<(() => void) | null>(null);
	const [, afterRender] = useReducer((renders: number) => renders + 1, 0);
	useEffect(() => {
		const next = burstRest.current;
		burstRest.current = null;
		next?.();
	});
	useInput(
		(input, key) => {
			const {mode: currentMode, promptText: text, handlers: current} = latest.current;
			if (currentMode === 'input') {
				if (key.return) return current.onSubmit();
				if (key.backspace || key.delete) return current.onText(text.slice(0, -1));
				if (!key.escape && !key.ctrl && !key.meta && input && !key.upArrow && !key.downArrow && !key.tab) {
					// Typed text and Enter can arrive in one chunk (a paste, or keys sent together).
					const [typed = '', ...rest] = input.split('\r');
					current.onText(text + typed);
					if (rest.length > 0) current.onSubmit();
					return;
				}
			}
			// A burst (key repeat, or keys sent together, as `tmux send-keys j Enter` does) arrives as
			// one string: read it key by key, each after the render the previous key caused, so Enter
			// after j opens the row j moved to, not the one selected before the burst.
			const isBurst = input.length > 1 && !key.ctrl && !key.meta && /^[\x20-\x7e\r]+$/.test(input);
			if (!isBurst) {
				const binding = matchBinding(input, key, currentMode);
				if (binding) current.onCommand(binding);
				return;
			}
			const handleNext = (chars: readonly string[]): void => {
				const [char, ...rest] = chars;
				if (char === undefined) return;
				const now = latest.current;
				const binding = matchBinding(char === '\r' ? '' : char, char === '\r' ? {...key, return: true} : key, now.mode);
				if (binding) now.handlers.onCommand(binding);
				if (binding?.command === BoardCommand.filter) {
					// What follows `/` in the same burst is the filter text, not more commands.
					const [typed = '', ...afterEnter] = rest.join('').split('\r');
					if (typed) now.handlers.onText(typed);
					if (afterEnter.length > 0) now.handlers.onSubmit();
					return;
				}
				if (rest.length === 0) return;
				burstRest.current = () => handleNext(rest);
				// A render even when this key changed nothing, so the rest is never left waiting.
				afterRender();
			};
			handleNext([...input]);
		},
		{isActive},
	);
}
