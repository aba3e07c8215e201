import type {IntakeRecord} from '../core/contract/intake.ts';
import type {Ledger} from '../ledger/open-ledger.ts';
import {recordReady} from '../handoff/intake.ts';
import {requirePerson} from './person-gate.ts';

/**
 * Marks a stored contract ready to be taken (`contract ready ID`): a person's yes, at a terminal
 * (docs/security.md). Until then it is a draft that no pickup takes. `as` names who marked it (the
 * person who answers for it), else the OS user.
 */
export function markContractReady(ledger: Ledger, id: string, as: string | null = null): IntakeRecord {
	const person = requirePerson(ledger, {verb: 'contract ready', target: id, source: 'cli'});
	return recordReady(ledger, id, {by: as?.trim() || person.user || 'a person', osUser: person.user, uid: person.uid});
}
