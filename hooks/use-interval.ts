import {useEffect, useRef} from 'react';

/** Runs `task` every `intervalMs` (not at all when either is missing); one timer, one cleanup. */
export function useInterval(task: (() => unknown) | undefined, intervalMs: number | undefined): void {
	const taskRef = useRef(task);
	taskRef.current = task;
	useEffect(() => {
		if (!intervalMs || !taskRef.current) return;
		let isRunning = false;
		const timer = setInterval(() => {
			if (isRunning) return;
			isRunning = true;
			void Promise.resolve()
				.then(() => taskRef.current?.())
				.catch(() => {})
				.finally(() => {
					isRunning = false;
				});
		}, intervalMs);
		return () => clearInterval(timer);
	}, [intervalMs]);
}
