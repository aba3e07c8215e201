import {contractRecordId} from '../core/contract/intake.ts';
import {EventType} from '../core/events.ts';
import {HANDED_IN_UNNAMED} from '../core/task.ts';
import type {Ledger} from '../ledger/open-ledger.ts';
import {HandoffError, isSameName} from './handoff-error.ts';

// Who accepts a piece of work when its contract names nobody: the person who hands it over
// (docs/contracts.md, "Acceptors"). A person says so with `contract ready` (or `take --for`); the
// record is the contract's own, keyed like its claims, so a contract kept anywhere (a file, a
// draft in the ledger) is made ready by the same function.

/** What a person says when they make a contract ready. */
export type ReadyRequest = {
	/** The contract's key (a file's: contractKey; a draft's: its id). */
	readonly contractKey: string;
	/** Where it is, for the record: a file's path or a draft's id. */
	readonly contract: string;
	readonly digest: string | null;
	/** The acceptors the contract names itself: when it names any, nobody else is recorded. */
	readonly namedInContract: readonly string[];
	/** Who does the work, when the contract says: never its acceptor. */
	readonly operator: string | null;
	/** The person making it ready, as recorded (`--as`, else the OS user), and the OS user and uid beside it. */
	readonly person: {readonly name: string; readonly osUser: string; readonly uid: number | null};
	readonly source: string;
	readonly now?: number;
};

export type ReadyResult = {
	/** Who accepts: the contract's own acceptors, or the person. */
	readonly acceptors: readonly string[];
	/** Whether the person was recorded as the acceptor (the contract named nobody). */
	readonly isPersonAcceptor: boolean;
	/** A claim of the contract that learned its acceptor now (held, or a hand-in waiting). */
	readonly claimTaskId: string | null;
};

/** The acceptor a person named for a contract (`contract ready`, `take --for`), or null. */
export function namedAcceptorOf(ledger: Ledger, contractKey: string): {readonly name: string; readonly by: string} | null {
	const [ready] = ledger.reader.latestEventsOf(contractRecordId(contractKey), [EventType.contractReady], 1);
	const name = ready?.data.acceptor;
	return name ? {name, by: ready?.data.by ?? name} : null;
}

/** The latest claim of the contract when it is held or its hand-in waits, and who holds it. */
function liveClaim(ledger: Ledger, contractKey: string): {readonly taskId: string; readonly holder: string} | null {
	const latest = ledger.reader.latestClaimOf(contractKey);
	const task = latest ? ledger.reader.task(latest.taskId) : undefined;
	if (!latest || !task || task.status === 'stopped') return null;
	if (task.status === 'done' && task.endReason !== HANDED_IN_UNNAMED) return null;
	const [taken] = ledger.reader.latestEventsOf(task.id, [EventType.claimTaken], 1);
	return {taskId: task.id, holder: taken?.data.holder ?? ''};
}

/**
 * Marks a contract ready and, when it names no acceptor, records the person as the one who
 * accepts it (docs/contracts.md, "contract ready"). A claim already taken without an acceptor
 * learns it now; a hand-in that waited for one then waits for this person. Refused when the person
 * is the contract's operator or holds its claim: whoever does the work cannot accept it. The
 * caller has already checked that a person asks (docs/security.md).
 */
export function recordContractReady(ledger: Ledger, request: ReadyRequest): ReadyResult {
	const at = request.now ?? Date.now();
	const name = request.person.name;
	const isPersonAcceptor = request.namedInContract.length === 0;
	return ledger.writer.transaction(() => {
		const claim = liveClaim(ledger, request.contractKey);
		if (isPersonAcceptor) {
			if (request.operator !== null && isSameName(request.operator, name))
				throw new HandoffError(
					`${name} is the contract's operator: whoever does the work cannot accept it (--as names who accepts)`,
				);
			if (claim !== null && isSameName(claim.holder, name))
				throw new HandoffError(`${name} holds its claim ${claim.taskId}: whoever does the work cannot accept it`);
		}
		ledger.writer.append([
			{
				taskId: contractRecordId(request.contractKey),
				type: EventType.contractReady,
				at,
				source: request.source,
				data: {
					contract: request.contract,
					contractKey: request.contractKey,
					contractDigest: request.digest,
					acceptor: isPersonAcceptor ? name : null,
					by: name,
					osUser: request.person.osUser,
					uid: request.person.uid,
				},
			},
		]);
		const [named] = claim ? ledger.reader.latestEventsOf(claim.taskId, [EventType.claimAcceptorNamed], 1) : [];
		const [taken] = claim ? ledger.reader.latestEventsOf(claim.taskId, [EventType.claimTaken], 1) : [];
		const hasAcceptor = Object.keys(taken?.data.acceptors ?? {}).length > 0 || named !== undefined;
		if (!isPersonAcceptor || claim === null || hasAcceptor)
			return {acceptors: isPersonAcceptor ? [name] : request.namedInContract, isPersonAcceptor, claimTaskId: null};
		const task = ledger.reader.task(claim.taskId);
		ledger.writer.append([
			{taskId: claim.taskId, type: EventType.claimAcceptorNamed, at, source: request.source, data: {acceptor: name, by: name}},
			...(task?.status === 'done'
				? [
						{
							taskId: claim.taskId,
							type: EventType.needRaised,
							at,
							source: request.source,
							data: {lane: 'waiting', kind: 'hand-in', message: `hand-in waits for ${name}`, actor: name},
						},
					]
				: []),
		]);
		return {acceptors: [name], isPersonAcceptor, claimTaskId: claim.taskId};
	});
}
