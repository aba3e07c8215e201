import {acceptorsOf, operatorOf} from '../core/contract/model.ts';
import type {ReceiverPolicy} from '../core/contract/policy.ts';
import {checkContractFile, unreadContract} from '../handoff/check-contract.ts';
import {contractKey, HandoffError, takeContract, type TakeResult} from '../handoff/claims.ts';
import {recordStoredReady} from '../handoff/intake.ts';
import {recordContractReady, type ReadyResult} from '../handoff/ready.ts';
import type {TripwireRunner} from '../handoff/tripwires.ts';
import type {Ledger} from '../ledger/open-ledger.ts';
import {requirePerson} from './person-gate.ts';

// A person hands work over: they say a contract is ready (and, when it names nobody, that they
// accept it), or take it for a worker. Only a person does either (docs/security.md): an agent that
// named itself or another agent the acceptor would choose who judges its own work.

/** The name a person acts under: `--as NAME`, else the OS user the actor rule found. */
function personName(as: string | null, osUser: string | null): string {
	return as?.trim() || osUser || 'a person';
}

/**
 * `controlroom contract ready FILE`, for a contract that is a file: checks it (it must be valid),
 * then records that it is ready and, when it names no acceptor, that this person accepts it. The
 * record itself is recordContractReady's (src/handoff/ready.ts), keyed by the contract's key, so a
 * contract kept elsewhere is made ready by a sibling of this function, not by another record.
 */
export function readyContractFile(
	ledger: Ledger,
	request: {readonly file: string; readonly as: string | null; readonly source: string},
): ReadyResult & {readonly file: string} {
	const person = requirePerson(ledger, {verb: 'contract ready', target: request.file, source: request.source});
	const checked = checkContractFile(request.file);
	const unread = unreadContract(checked);
	if (unread !== null) throw new HandoffError(`${unread}; not made ready`);
	if (!checked.isValid || checked.contract === null)
		throw new HandoffError(
			`${request.file}: invalid contract; not made ready`,
			checked.problems.filter(problem => problem.severity === 'error'),
		);
	const result = recordContractReady(ledger, {
		contractKey: contractKey(checked.file),
		contract: checked.file,
		digest: checked.digest,
		namedInContract: Object.keys(acceptorsOf(checked.contract)),
		operator: operatorOf(checked.contract),
		person: {name: personName(request.as, person.user), osUser: person.user ?? 'unknown', uid: person.uid},
		source: request.source,
	});
	return {...result, file: checked.file};
}

/**
 * `controlroom contract ready ID`, for a contract stored in the ledger (written through serve or an
 * agent's mcp): the sibling of readyContractFile, the same person's check and the same record
 * (recordContractReady, keyed by its id). Until then it is a draft that no pickup takes.
 */
export function readyStoredContract(
	ledger: Ledger,
	request: {readonly id: string; readonly as: string | null; readonly source: string},
): ReturnType<typeof recordStoredReady> {
	const person = requirePerson(ledger, {verb: 'contract ready', target: request.id, source: request.source});
	return recordStoredReady(
		ledger,
		request.id,
		{name: personName(request.as, person.user), osUser: person.user ?? 'unknown', uid: person.uid},
		request.source,
	);
}

/**
 * `controlroom take --for WORKER FILE`: a person takes a contract for a worker; when the contract
 * names no acceptor, the person who handed it over accepts the work.
 */
export function takeForWorker(
	ledger: Ledger,
	request: {
		readonly file: string;
		readonly worker: string;
		readonly as: string | null;
		readonly leaseSeconds?: number;
		readonly timeLimitSeconds?: number;
		readonly policy: ReceiverPolicy;
		readonly runTripwire?: TripwireRunner;
		readonly source: 'cli';
	},
): TakeResult {
	const person = requirePerson(ledger, {verb: 'take --for', target: request.file, source: request.source});
	return takeContract({ledger, source: request.source, identity: null}, request.file, request.worker, request.leaseSeconds, {
		policy: request.policy,
		handedOverBy: personName(request.as, person.user),
		runTripwire: request.runTripwire,
		...(request.timeLimitSeconds === undefined ? {} : {timeLimitSeconds: request.timeLimitSeconds}),
	});
}
