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

/** Lets effects (input listeners, subscriptions) register before the first write. */
export const nextTick = async (): Promise<void> =>
	new Promise(resolve => {
		setImmediate(() => setTimeout(resolve, 0));
	});

/** Waits until the last frame contains `text`, or fails after `timeoutMs`. */
export async function waitForFrame(
	instance: {lastFrame: () => string | undefined},
	text: string,
	timeoutMs = 3000,
): Promise<string> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const frame = instance.lastFrame() ?? '';
		if (frame.includes(text)) return frame;
		if (Date.now() > deadline) throw new Error(`frame never showed “${text}”; last frame:\n${frame}`);
		await new Promise(resolve => setTimeout(resolve, 10));
	}
}
