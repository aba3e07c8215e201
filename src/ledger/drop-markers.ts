import {closeSync, openSync, readdirSync} from 'node:fs';
import {randomBytes} from 'node:crypto';
import {join} from 'node:path';
import {DROPPED_COUNTER} from './counters.ts';
import type {Ledger} from './open-ledger.ts';
import {makePrivateDir, PRIVATE_FILE_MODE} from './private-files.ts';

// A hook that can write neither the ledger nor a spool file (a full disk) leaves a drop marker:
// an empty file `NAME.dropped` in the spool, since a new name in an existing folder needs no data
// block where a line would. Both hooks leave them (spool-hook.sh and `controlroom hook`); the
// fold counts them into the ledger's `hook.dropped` counter and removes them (docs/hooks.md).

/** A drop marker's name ends so. */
export const DROP_SUFFIX = '.dropped';

/** Leaves one drop marker in the spool folder `dir`. */
export function markDropped(dir: string): void {
	makePrivateDir(dir);
	const name = `${Date.now()}-${process.pid}-${randomBytes(6).toString('hex')}${DROP_SUFFIX}`;
	closeSync(openSync(join(dir, name), 'wx', PRIVATE_FILE_MODE));
}

/** The drop markers waiting in the spool folder `dir` (none when it cannot be read). */
export function dropMarkers(dir: string): string[] {
	try {
		return readdirSync(dir).filter(name => name.endsWith(DROP_SUFFIX));
	} catch {
		return [];
	}
}

/**
 * Every hook event recorded nowhere: those counted into the ledger already, and the markers still
 * waiting for a fold. What `doctor`, `hooks status` and the board say.
 */
export function droppedEvents(ledger: Ledger | null, dir: string): {readonly counted: number; readonly waiting: number} {
	let counted = 0;
	try {
		counted = ledger?.reader.counter(DROPPED_COUNTER) ?? 0;
	} catch {
		// A ledger that cannot be read counts nothing here; doctor says why elsewhere.
	}
	return {counted, waiting: dropMarkers(dir).length};
}
