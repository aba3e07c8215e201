import {EventType} from '../core/events.ts';
import {reviewRecords, type ReviewRecord} from '../core/review/reviews.ts';
import type {LedgerReader} from './reader.ts';

/** The review event types a review's record is folded from. */
const REVIEW_TYPES = [EventType.reviewStarted, EventType.reviewVerdict, EventType.reviewFixRound, EventType.reviewConcluded];

/** Every review in the ledger, folded from its events (src/core/review/reviews.ts), oldest first. */
export function loadReviews(reader: LedgerReader): ReviewRecord[] {
	return reviewRecords(reader.eventsOfType(REVIEW_TYPES));
}
