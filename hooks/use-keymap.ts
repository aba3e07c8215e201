import {useInput} from 'ink';
import {useEffect, useReducer, useRef} from 'react';
import {
	BoardCommand,
	KEY_TABLE,
	keyName,
	matchBinding,
	splitKeys,
	type BoardMode,
	type KeyBinding,
	type KeyPress,
} from '../src/core/board/keymap.ts';
import {parseMouse, type MouseReport} from '../src/core/board/mouse.ts';

type Handlers = {
	/** A key from the table was pressed in the current mode. */
	readonly onCommand: (binding: KeyBinding) => void;
	/** Typing in a prompt: text to add, or one character to erase. */
	readonly onEdit: (edit: {readonly kind: 'type'; readonly text: string} | {readonly kind: 'erase'}) => void;
	/** A mouse report (board.ts turns reporting on unless the mouse is off): never read as keys. */
	readonly onMouse?: (report: MouseReport) => void;
};

/** Whether a key press in a prompt is text (or Backspace) rather than a command. */
function isEditing(press: KeyPress): boolean {
	const name = keyName(press.input, press.key);
	if (name === 'backspace' || name === 'space') return true;
	return press.input !== '' && !press.key.ctrl && !press.key.meta && name.length === [...press.input].length;
}

/**
 * The board's one input handler: table keys in every mode, plain typing in a prompt. Keys are read
 * one by one from a queue, whether they came in one read (a burst) or in reads faster than the board
 * draws (a fast typist, a loaded machine): a key that follows a command waits for the render that
 * command caused, so it is read in the mode the command left (`/` then `a` types an `a` into the
 * filter, never approves) and acts on what is then on screen. Text and Backspace in a prompt go
 * straight to the reducer, which applies them in order, so a burst of Backspaces erases one
 * character each.
 */
export function useKeymap(mode: BoardMode, handlers: Handlers, table: readonly KeyBinding[] = KEY_TABLE, isActive = true): void {
	// Read the latest mode and handlers at key time: a key typed right after a render must not reach
	// the previous render's handler (Ink re-subscribes useInput in a passive effect).
	const latest = useRef({mode, handlers, table});
	latest.current = {mode, handlers, table};
	// Keys not yet read, and whether a command's render is still to come. The queue is drained once
	// that render has committed; a timer is not enough: React's scheduler may yield on a loaded
	// machine, and a due timer then runs first.
	const pending = useRef<KeyPress[]>([]);
	const awaitingRender = useRef(false);
	// Which render that is: the effects of a render committed before the command (a ledger read's)
	// may still be flushed after it, and must not drain the queue in the mode before the command.
	const [renders, afterRender] = useReducer((count: number) => count + 1, 0);
	const rendered = useRef(renders);
	rendered.current = renders;
	const awaitedRender = useRef(0);
	const drain = useRef((): void => {
		while (!awaitingRender.current) {
			const press = pending.current.shift();
			if (!press) return;
			const now = latest.current;
			if (now.mode === 'input' && isEditing(press)) {
				now.handlers.onEdit(
					keyName(press.input, press.key) === 'backspace' ? {kind: 'erase'} : {kind: 'type', text: press.input},
				);
				continue;
			}
			const binding = matchBinding(press.input, press.key, now.mode, now.table);
			if (!binding) continue;
			now.handlers.onCommand(binding);
			if (binding.command === BoardCommand.quit || binding.command === BoardCommand.interrupt) {
				pending.current = [];
				return;
			}
			awaitingRender.current = true;
			awaitedRender.current = rendered.current + 1;
			// A render even when this key changed nothing, so the keys after it are never left waiting.
			afterRender();
		}
	});
	useEffect(() => {
		if (!awaitingRender.current || renders < awaitedRender.current) return;
		awaitingRender.current = false;
		drain.current();
	});
	useInput(
		(input, key) => {
			// A mouse report is one input (Ink parses the sequence whole); read as keys, its `[`, digits
			// and `M` would be typed into a prompt. It acts only between keys, on the screen drawn.
			const report = parseMouse(input);
			if (report !== null) {
				if (pending.current.length === 0 && !awaitingRender.current) latest.current.handlers.onMouse?.(report);
				return;
			}
			pending.current.push(...splitKeys(input, key));
			drain.current();
		},
		{isActive},
	);
}
