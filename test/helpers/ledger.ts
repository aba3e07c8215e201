import {join} from 'node:path';
import {newEvent, type EventDataOf, type EventTypeName, type NewEvent} from '../../src/core/events.ts';
import {openLedger, type Ledger} from '../../src/ledger/open-ledger.ts';
import {scratchDir} from './cli.ts';

/** A new ledger in its own scratch folder. */
export function scratchLedger(): Ledger {
	return openLedger(join(scratchDir('cr-ledger-'), 'ledger.db'));
}

/**
 * The path of a new, empty ledger in `dir` (a scratch folder unless given): made the way `run`
 * or `ingest` would, since only a command that owns a ledger creates one at a --ledger path.
 */
export function freshLedgerFile(dir: string = scratchDir('cr-ledger-')): string {
	const file = join(dir, 'ledger.db');
	openLedger(file).close();
	return file;
}

/** A minimal event for tests; fields can be overridden. */
export function event<T extends EventTypeName>(taskId: string, type: T, data?: EventDataOf<T>, at = 1_000): NewEvent {
	return newEvent(type, data ?? ({} as EventDataOf<T>), {taskId, at, source: 'wrapper'});
}
