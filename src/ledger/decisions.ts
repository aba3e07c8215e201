import {DECISION_EVENT_TYPES, foldDecisions, type DecisionRecord} from '../core/decisions/fold.ts';
import type {LedgerReader} from './reader.ts';

/** Every question the ledger knows, folded from its decision events (src/core/decisions/fold.ts). */
export function readDecisions(reader: LedgerReader): Map<string, DecisionRecord> {
	return foldDecisions(reader.eventsOfType(DECISION_EVENT_TYPES));
}
