import {foldIntake, INTAKE_EVENT_TYPES, type IntakeRecord} from '../core/contract/intake.ts';
import {EventType, type EventOfType} from '../core/events.ts';
import type {LedgerReader} from './reader.ts';

/** Every stored contract the ledger knows, folded from its events (src/core/contract/intake.ts). */
export function readIntake(reader: LedgerReader): Map<string, IntakeRecord> {
	return foldIntake(reader.eventsOfType(INTAKE_EVENT_TYPES));
}

/** One stored contract's record, or undefined. */
export function intakeRecord(reader: LedgerReader, id: string): IntakeRecord | undefined {
	return readIntake(reader).get(id);
}

/** A stored contract's text and its digest, as written. */
export function contractTextOf(reader: LedgerReader, id: string): {readonly text: string; readonly digest: string} | null {
	const [event] = reader.latestEventsOf(id, [EventType.contractText], 1);
	return event?.data.text ? {text: event.data.text, digest: event.data.digest ?? ''} : null;
}

/** A stored contract's drafted event (its checks, guesses, writer), or undefined. */
export function draftedEventOf(reader: LedgerReader, id: string): EventOfType<'contract.drafted'> | undefined {
	const [event] = reader.latestEventsOf(id, [EventType.contractDrafted], 1);
	return event;
}
