import {useEffect, useRef} from 'react';

/**
 * Runs `task` every `intervalMs` (not at all when either is missing), never two at once; one timer,
 * one cleanup. A failure goes to `onError` and the timer keeps going.
 */
export function useInterval(
	task: (() => unknown) | undefined,
	intervalMs: number | undefined,
	onError?: (error: unknown) => void,
): void {
	const taskRef = useRef(task);
	taskRef.current = task;
	const errorRef = useRef(onError);
	errorRef.current = onError;
	useEffect(() => {
		if (!intervalMs || !taskRef.current) return;
		let isRunning = false;
		const timer = setInterval(() => {
			if (isRunning) return;
			isRunning = true;
			void Promise.resolve()
				.then(() => taskRef.current?.())
				.catch((error: unknown) => errorRef.current?.(error))
				.finally(() => {
					isRunning = false;
				});
		}, intervalMs);
		return () => clearInterval(timer);
	}, [intervalMs]);
}
