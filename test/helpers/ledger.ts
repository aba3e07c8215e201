import {join} from 'node:path';
import type {NewEvent} from '../../src/core/events.ts';
import {openLedger, type Ledger} from '../../src/ledger/open-ledger.ts';
import {scratchDir} from './cli.ts';

/** A new ledger in its own scratch folder. */
export function scratchLedger(): Ledger {
	return openLedger(join(scratchDir('cr-ledger-'), 'ledger.db'));
}

/** A minimal event for tests; fields can be overridden. */
export function event(taskId: string, type: string, data: NewEvent['data'] = {}, at = 1_000): NewEvent {
	return {taskId, type, at, source: 'wrapper', data};
}
