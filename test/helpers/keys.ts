import type {EventEmitter} from 'node:events';
import {onEvent, waitFor, type Wakeup} from './wait-for.ts';

/** Key presses as a terminal sends them. */
export const KEYS = {
	up: '\u001B[A',
	down: '\u001B[B',
	enter: '\r',
	escape: '\u001B',
	tab: '\t',
	ctrlC: '\u0003',
	backspace: '\u007F',
} as const;

/** What ink-testing-library's `render` returns, as far as waiting on it goes. */
type Rendered = {
	lastFrame: () => string | undefined;
	readonly stdout: EventEmitter & {write: (frame: string) => void};
	readonly stdin: EventEmitter;
};

const announcing = new WeakSet<object>();

/** Fires on every frame Ink writes (ink-testing-library keeps frames without telling anyone: it is told here). */
function onFrame(stdout: Rendered['stdout']): Wakeup {
	if (!announcing.has(stdout)) {
		announcing.add(stdout);
		const write = stdout.write;
		stdout.write = frame => {
			write(frame);
			stdout.emit('frame');
		};
	}
	return onEvent(stdout, 'frame');
}

/** Waits until the last frame contains `text`, looking at each new frame; fails after `timeoutMs`. */
export async function waitForFrame(instance: Rendered, text: string, timeoutMs = 3000): Promise<string> {
	return waitFor(
		() => {
			const frame = instance.lastFrame() ?? '';
			return frame.includes(text) && frame;
		},
		{what: `a frame showing “${text}”`, timeoutMs, on: [onFrame(instance.stdout)], explain: () => instance.lastFrame() ?? ''},
	);
}

/**
 * Waits until the board reads keys: Ink listens on stdin once the key handler's effect has run
 * (it turns raw mode on and subscribes in the same effect pass). A key written before that is lost.
 */
export async function waitForKeys(instance: Rendered, timeoutMs = 3000): Promise<void> {
	await waitFor(() => instance.stdin.listenerCount('readable') > 0, {
		what: 'the board to listen for keys',
		timeoutMs,
		on: [onEvent(instance.stdin, 'newListener')],
	});
}
