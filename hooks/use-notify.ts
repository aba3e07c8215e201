import {useEffect, useRef} from 'react';
import type {HumanQueue} from '../src/core/human-queue.ts';
import {freshEntries, queueKeys, type NeedsYouNotification} from '../src/core/notify.ts';

/** Sends what the adapter is given: one call per entry new to Needs you. */
export type Notify = (entries: readonly Omit<NeedsYouNotification, 'suppressed'>[]) => void;

/**
 * Announces each entry that comes into Needs you while the board is open, once: the keys already
 * announced are kept for the board's life, so a refresh that reads the same entry again says
 * nothing. What was there when the board opened is not announced (as the bell).
 */
export function useNotify(queue: HumanQueue, notify: Notify | undefined): void {
	const notified = useRef<Set<string> | null>(null);
	useEffect(() => {
		if (notify === undefined) return;
		if (notified.current === null) {
			notified.current = new Set(queueKeys(queue));
			return;
		}
		const fresh = freshEntries(queue, notified.current);
		for (const entry of fresh) notified.current.add(entry.key);
		if (fresh.length > 0) notify(fresh);
	}, [queue, notify]);
}
