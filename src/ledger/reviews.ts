import {REVIEW_EVENT_TYPES} from '../core/read-port/host-gates.ts';
import {reviewRecords, type ReviewRecord} from '../core/review/reviews.ts';
import type {LedgerReader} from './reader.ts';

/** Every review in the ledger, folded from its events (src/core/review/reviews.ts), oldest first. */
export function loadReviews(reader: LedgerReader): ReviewRecord[] {
	return reviewRecords(reader.eventsOfType(REVIEW_EVENT_TYPES));
}
