import {useInput} from 'ink';
import {useEffect, useReducer, useRef} from 'react';
import {
	BoardCommand,
	keyName,
	matchBinding,
	splitKeys,
	type BoardMode,
	type KeyBinding,
	type KeyPress,
} from '../src/core/board/keymap.ts';

type Handlers = {
	/** A key from the table was pressed in the current mode. */
	readonly onCommand: (binding: KeyBinding) => void;
	/** Typing in a prompt: text to add, or one character to erase. */
	readonly onEdit: (edit: {readonly kind: 'type'; readonly text: string} | {readonly kind: 'erase'}) => void;
};

/** Whether a key press in a prompt is text (or Backspace) rather than a command. */
function isEditing(press: KeyPress): boolean {
	const name = keyName(press.input, press.key);
	if (name === 'backspace' || name === 'space') return true;
	return press.input !== '' && !press.key.ctrl && !press.key.meta && name.length === [...press.input].length;
}

/**
 * The board's one input handler: table keys in every mode, plain typing in a prompt. What arrives
 * in one read (a burst) is read key by key: a key that is a command waits for the render the
 * previous command caused, so it acts on what is then on screen; text and Backspace in a prompt go
 * straight to the reducer, which applies them in order, so a burst of Backspaces erases one
 * character each.
 */
export function useKeymap(mode: BoardMode, handlers: Handlers, isActive = true): void {
	// Read the latest mode and handlers at key time: a key typed right after a render must not reach
	// the previous render's handler (Ink re-subscribes useInput in a passive effect).
	const latest = useRef({mode, handlers});
	latest.current = {mode, handlers};
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
			const handleNext = (presses: readonly KeyPress[]): void => {
				let rest = presses;
				while (rest.length > 0) {
					const [press, ...after] = rest;
					rest = after;
					if (!press) return;
					const now = latest.current;
					if (now.mode === 'input' && isEditing(press)) {
						now.handlers.onEdit(
							keyName(press.input, press.key) === 'backspace' ? {kind: 'erase'} : {kind: 'type', text: press.input},
						);
						continue;
					}
					const binding = matchBinding(press.input, press.key, now.mode);
					if (!binding) continue;
					now.handlers.onCommand(binding);
					if (binding.command === BoardCommand.quit || binding.command === BoardCommand.interrupt) return;
					if (rest.length === 0) return;
					const remaining = rest;
					burstRest.current = () => handleNext(remaining);
					// A render even when this key changed nothing, so the rest is never left waiting.
					afterRender();
					return;
				}
			};
			handleNext(splitKeys(input, key));
		},
		{isActive},
	);
}
