import {disagreementRecords, type DisagreementRecord} from '../../core/disagreements.ts';
import {foldOrders, ORDER_EVENT_TYPES, type OrderRecord} from '../../core/effects/fold.ts';
import {EventType, type EventOfType, type EventTypeName, type LedgerEvent} from '../../core/events.ts';
import {reviewRecords, type ReviewRecord} from '../../core/review/reviews.ts';

/** The review event types a review's record is folded from (as src/ledger/reviews.ts reads them). */
const REVIEW_TYPES = [EventType.reviewStarted, EventType.reviewVerdict, EventType.reviewFixRound, EventType.reviewConcluded];
const CLOSER_TYPES = [EventType.workSentBack, EventType.workAccepted];

/**
 * The event types a host's gates and queue answers are folded from: reviews, disagreements, work
 * orders and their effects, acknowledgements, send-backs and acceptances. The fleet reads these
 * per host (few next to the agents' own events) and folds them with the local folds.
 */
export const GATE_EVENT_TYPES: readonly EventTypeName[] = [
	...REVIEW_TYPES,
	EventType.disagreementOpened,
	...ORDER_EVENT_TYPES,
	EventType.acknowledged,
	...CLOSER_TYPES,
];

/** One host's gates, folded from its own events exactly as its local ledger folds them. */
export type HostGates = {
	readonly reviews: readonly ReviewRecord[];
	readonly disagreements: readonly DisagreementRecord[];
	readonly orders: ReadonlyMap<string, OrderRecord>;
	readonly acknowledgements: readonly EventOfType<'queue.acknowledged'>[];
	readonly closers: readonly EventOfType<'work.sent_back' | 'work.accepted'>[];
};

const ofTypes = <T extends EventTypeName>(events: readonly LedgerEvent[], types: readonly T[]): EventOfType<T>[] =>
	events.filter((event): event is EventOfType<T> => (types as readonly string[]).includes(event.type));

/** Folds one host's gate events (oldest first) with the same functions as the local reader. */
export function hostGatesOf(events: readonly LedgerEvent[]): HostGates {
	return {
		reviews: reviewRecords(ofTypes(events, REVIEW_TYPES)),
		disagreements: disagreementRecords(ofTypes(events, [EventType.disagreementOpened])),
		orders: foldOrders(ofTypes(events, ORDER_EVENT_TYPES)),
		acknowledgements: ofTypes(events, [EventType.acknowledged]),
		closers: ofTypes(events, CLOSER_TYPES),
	};
}

export const NO_GATES: HostGates = {reviews: [], disagreements: [], orders: new Map(), acknowledgements: [], closers: []};
