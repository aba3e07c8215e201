import {DECISION_EVENT_TYPES, foldDecisions, type DecisionRecord} from '../decisions/fold.ts';
import {disagreementRecords, type DisagreementRecord} from '../disagreements.ts';
import {foldOrders, ORDER_EVENT_TYPES, type OrderRecord} from '../effects/fold.ts';
import {EventType, type EventOfType, type EventTypeName, type LedgerEvent} from '../events.ts';
import {reviewRecords, type ReviewRecord} from '../review/reviews.ts';
import {foldIntake, INTAKE_EVENT_TYPES, type IntakeRecord} from '../contract/intake.ts';

/** The event types a review's record is folded from. */
export const REVIEW_EVENT_TYPES = [
	EventType.reviewStarted,
	EventType.reviewVerdict,
	EventType.reviewFixRound,
	EventType.reviewConcluded,
] as const;

const CLOSER_TYPES = [EventType.workSentBack, EventType.workAccepted] as const;

/**
 * The event types a host's gates and queue answers are folded from: reviews, disagreements, work
 * orders and their effects, acknowledgements, send-backs and acceptances, the agents' questions
 * (decisions). Few next to the agents'
 * own events, so every store reads all of them at each read.
 */
export const GATE_EVENT_TYPES: readonly EventTypeName[] = [
	...REVIEW_EVENT_TYPES,
	EventType.disagreementOpened,
	...ORDER_EVENT_TYPES,
	EventType.acknowledged,
	...CLOSER_TYPES,
	...DECISION_EVENT_TYPES,
	// Stored contracts (docs/serve.md): their drafts, readiness and claims; never their texts.
	...INTAKE_EVENT_TYPES.filter(type => !(CLOSER_TYPES as readonly string[]).includes(type)),
];

/** One host's gates, folded from its own gate events. */
export type HostGates = {
	readonly reviews: readonly ReviewRecord[];
	readonly disagreements: readonly DisagreementRecord[];
	readonly orders: ReadonlyMap<string, OrderRecord>;
	readonly acknowledgements: readonly EventOfType<'queue.acknowledged'>[];
	readonly closers: readonly EventOfType<'work.sent_back' | 'work.accepted'>[];
	/** The agents' questions and their answers (docs/decisions.md). */
	readonly decisions: ReadonlyMap<string, DecisionRecord>;
	/** Stored contracts, written through serve or an agent's mcp. */
	readonly contracts: ReadonlyMap<string, IntakeRecord>;
};

const ofTypes = <T extends EventTypeName>(events: readonly LedgerEvent[], types: readonly T[]): EventOfType<T>[] =>
	events.filter((event): event is EventOfType<T> => (types as readonly string[]).includes(event.type));

/** Folds one host's gate events (oldest first): reviews, disagreements and work orders, and the events that answer queue entries. */
export function hostGatesOf(events: readonly LedgerEvent[]): HostGates {
	return {
		reviews: reviewRecords(ofTypes(events, REVIEW_EVENT_TYPES)),
		disagreements: disagreementRecords(ofTypes(events, [EventType.disagreementOpened])),
		orders: foldOrders(ofTypes(events, ORDER_EVENT_TYPES)),
		acknowledgements: ofTypes(events, [EventType.acknowledged]),
		closers: ofTypes(events, CLOSER_TYPES),
		decisions: foldDecisions(ofTypes(events, DECISION_EVENT_TYPES)),
		contracts: foldIntake(events),
	};
}
