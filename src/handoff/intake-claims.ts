import {isStoredContractId, isTakeable, type IntakeRecord} from '../core/contract/intake.ts';
import {formatOfText} from '../core/contract/contract-text.ts';
import {acceptanceLines, acceptorRoles, operatorOf, titleOf, type ContractKind} from '../core/contract/model.ts';
import {screenshotLines} from '../core/contract/markers.ts';
import type {ContractProblem} from '../core/contract/rules.ts';
import {EventType} from '../core/events.ts';
import {isEnded} from '../core/status.ts';
import {contractTextOf, intakeRecord} from '../ledger/contracts.ts';
import {checkContractText, type CheckContractOptions, type CheckedContract} from './check-contract.ts';
import {
	acceptorTermsOf,
	actorName,
	CLAIM_LEASE_SECONDS,
	CLAIM_ROLE,
	HandoffError,
	type Actor,
	type TakeResult,
} from './claims.ts';
import {isSameName} from './handoff-error.ts';
import {DEFAULT_CLAIM_TIME_LIMIT_SECONDS, DEFAULT_PASS_BACK_LIMIT, passBackRefusal} from './pass-back-limit.ts';
import {checkoutOf, mappedRepositoryFacts, type RepositoryMap} from './repository-map.ts';

// Taking a stored contract (docs/serve.md, "pickup"): the same claim as `take FILE`, keyed by the
// contract's id, exclusive by one immediate transaction; then whether this host can work it.

/** A stored contract checked on this host: through its map, with the kind it was written as. */
export function checkStoredContract(
	record: IntakeRecord,
	text: string,
	repositories: RepositoryMap,
	options: CheckContractOptions = {},
): CheckedContract {
	const kind = (['task', 'bug', 'transfer'] as const).find(candidate => candidate === record.kind) satisfies
		ContractKind | undefined;
	return checkContractText(
		{
			text,
			name: record.id,
			format: formatOfText(text),
			baseDir: process.cwd(),
			facts: mappedRepositoryFacts(repositories, record.repository),
			...(kind === undefined ? {} : {kind}),
		},
		options,
	);
}

/** A stored contract taken: the claim, and what this host found when it took it. */
export type StoredTake = TakeResult & {
	readonly contractId: string;
	/** The checkout it runs in here; null when this host has none. */
	readonly checkout: string | null;
	/** Why this host cannot work it (no checkout, the base revision not here, a command not defined); empty: it can. */
	readonly cannot: readonly ContractProblem[];
};

/**
 * Takes a ready stored contract for `holder`: refused (naming why) unless it is ready, passed
 * back or sent back, and no claim on it is held; of two takers at once, exactly one wins.
 */
export function takeStoredContract(
	actor: Actor,
	id: string,
	holder: string,
	repositories: RepositoryMap,
	leaseSeconds = CLAIM_LEASE_SECONDS,
	passBackLimit = DEFAULT_PASS_BACK_LIMIT,
	timeLimitSeconds = DEFAULT_CLAIM_TIME_LIMIT_SECONDS,
): StoredTake {
	if (!isStoredContractId(id)) throw new HandoffError(`'${id}' is not a stored contract's id`);
	const now = actor.now ?? Date.now;
	return actor.ledger.writer.transaction(() => {
		const record = intakeRecord(actor.ledger.reader, id);
		if (record === undefined) throw new HandoffError(`no stored contract ${id}`);
		const latest = actor.ledger.reader.latestClaimOf(id);
		const previous = latest ? actor.ledger.reader.task(latest.taskId) : undefined;
		if (previous && !isEnded(previous.status))
			throw new HandoffError(`${id}: held by ${record.claim?.holder ?? 'someone'} (claim ${previous.id})`);
		if (!isTakeable(record))
			throw new HandoffError(
				`${id} is ${record.state}: ${record.state === 'draft' ? 'a person has not made it ready' : 'not free to take'}`,
			);
		const capped = passBackRefusal(actor.ledger, id, passBackLimit);
		if (capped !== null) throw new HandoffError(`${id}: ${capped}`);
		const text = contractTextOf(actor.ledger.reader, id);
		if (text === null) throw new HandoffError(`${id}: its text is not in this ledger`);
		const checked = checkStoredContract(record, text.text, repositories);
		const contract = checked.contract;
		const checkout = record.repository === null ? null : checkoutOf(repositories, record.repository);
		const cannot = checked.problems.filter(problem => problem.severity === 'error');
		const taskId = `claim-${id}-${(latest?.count ?? 0) + 1}`;
		const at = now();
		const checks = contract === null ? [] : [...acceptanceLines(contract)];
		const passedBack = record.passedBack ? {by: record.passedBack.by, reason: record.passedBack.reason} : null;
		const title = `${record.title ?? (contract === null ? id : titleOf(contract))} (from ${record.writer.client} for ${record.writer.owner})`;
		// Who accepts: the contract's own acceptors, else the person whose `contract ready ID` named them.
		const {acceptors, namedBy} =
			contract === null ? {acceptors: {}, namedBy: null} : acceptorTermsOf(actor.ledger, contract, id, null);
		if (Object.keys(acceptors).some(name => isSameName(name, holder)))
			throw new HandoffError(`${id}: ${holder} would both do and accept this work: whoever does the work cannot accept it`);
		actor.ledger.writer.append([
			{
				taskId,
				type: EventType.registered,
				at,
				source: actor.source,
				data: {title, source: actor.source, role: CLAIM_ROLE, cwd: null, stallSeconds: leaseSeconds, command: null},
			},
			{
				taskId,
				type: EventType.claimTaken,
				at,
				source: actor.source,
				data: {
					contract: id,
					contractKey: id,
					kind: record.kind,
					holder,
					actor: actorName(actor),
					passedBack,
					checks,
					acceptors: acceptorRoles(acceptors),
					operator: contract === null ? null : operatorOf(contract),
					acceptorTerms: {...acceptors},
					acceptorNamedBy: namedBy,
					screenshots: screenshotLines(checks),
					contractDigest: text.digest,
					contractText: text.text,
					checkout,
					timeLimitSeconds,
				},
			},
		]);
		return {
			taskId,
			holder,
			title,
			passedBack,
			checks,
			leaseSeconds,
			timeLimitSeconds,
			acceptors: Object.keys(acceptors),
			tripwires: [],
			warnings: checked.problems.filter(problem => problem.severity === 'warning'),
			guesses: checked.guesses,
			contractId: id,
			checkout,
			cannot,
		};
	});
}

/** Why this host cannot work a contract it took, in one line for its pass-back. */
export function cannotWorkHere(take: StoredTake, repository: string | null, host: string): string | null {
	if (take.checkout === null)
		return `not on this machine (${host}): no checkout of ${repository ?? 'its repository'} in repositories.json`;
	const first = take.cannot[0];
	if (first === undefined) return null;
	const more = take.cannot.length > 1 ? ` (and ${take.cannot.length - 1} more)` : '';
	return `cannot be worked on ${host}: ${first.field}: ${first.message}${more}`;
}
