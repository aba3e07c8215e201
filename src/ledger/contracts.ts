import {contractRecordId, foldIntake, INTAKE_EVENT_TYPES, type IntakeRecord} from '../core/contract/intake.ts';
import {EventType, type EventOfType} from '../core/events.ts';
import type {LedgerReader} from './reader.ts';

/** Every stored contract the ledger knows, folded from its events (src/core/contract/intake.ts). */
export function readIntake(reader: LedgerReader): Map<string, IntakeRecord> {
	return foldIntake(reader.eventsOfType(INTAKE_EVENT_TYPES));
}

/**
 * One stored contract's record, or undefined: folded from its own events, a person's `contract
 * ready` record (`contract-ID`) and its claims' (each claim task is `claim-ID-N`), not from every contract's, so a write costs the same with a
 * thousand contracts stored as with one.
 */
export function intakeRecord(reader: LedgerReader, id: string): IntakeRecord | undefined {
	const claims = reader.latestClaimOf(id)?.count ?? 0;
	const events = [
		...reader.eventsOf(id),
		...reader.eventsOf(contractRecordId(id)),
		...Array.from({length: claims}, (_, index) => reader.eventsOf(`claim-${id}-${index + 1}`)).flat(),
	].sort((a, b) => a.seq - b.seq);
	return foldIntake(events).get(id);
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

/** A contract as a host publishes it to the fleet: its drafted event's data (JSON), its text, its readiness. */
export type PublishedContract = {
	readonly id: string;
	readonly drafted: string;
	readonly text: string;
	readonly writtenAt: number;
	readonly readied: {readonly by: string; readonly at: number} | null;
};

/**
 * The contracts written on this host (not copied from the fleet) whose record changed after
 * `afterSeq`, as the fleet holds them (docs/fleet.md, "Contracts").
 */
export function contractsToPublish(reader: LedgerReader, afterSeq = 0): PublishedContract[] {
	return [...readIntake(reader).values()].flatMap(record => {
		if (record.writer.via === 'fleet' || record.lastSeq <= afterSeq) return [];
		const drafted = draftedEventOf(reader, record.id);
		const text = contractTextOf(reader, record.id);
		if (drafted === undefined || text === null) return [];
		const readied = record.readied === null ? null : {by: record.readied.by, at: record.readied.at};
		return [{id: record.id, drafted: JSON.stringify(drafted.data), text: text.text, writtenAt: record.writtenAt, readied}];
	});
}
