import {createHash} from 'node:crypto';
import {formatOfText, textProblem, valueProblem} from '../core/contract/contract-text.ts';
import type {ContractWriter, IntakeRecord} from '../core/contract/intake.ts';
import {
	acceptanceLines,
	acceptorsOf,
	contextMapOf,
	operatorOf,
	titleOf,
	type Contract,
	type ContractKind,
} from '../core/contract/model.ts';
import type {ContractProblem} from '../core/contract/rules.ts';
import {EventType, type NewEvent} from '../core/events.ts';
import {contractTextOf, draftedEventOf, intakeRecord, readIntake} from '../ledger/contracts.ts';
import type {Ledger} from '../ledger/open-ledger.ts';
import {checkContractText, unreadContract} from './check-contract.ts';
import {HandoffError} from './claims.ts';
import {MAX_CONTRACT_BYTES} from './contract-file.ts';
import {checkStoredContract} from './intake-claims.ts';
import {namedAcceptorOf, recordContractReady, type ReadyRequest, type ReadyResult} from './ready.ts';
import {mappedRepositoryFacts, type RepositoryMap} from './repository-map.ts';

// Contracts written as text through a tool (docs/serve.md): a connector's `write_task`, an agent's
// `file_bug` on `controlroom mcp`. Checked exactly as `contract check` checks a file, stored in the
// ledger as a draft with who wrote it, and taken only once a person (or the writer's token's
// policy) made it ready.

/** A tool that writes a contract, and the kind it writes. */
export const WRITE_TOOLS: Readonly<Record<'write_task' | 'file_bug' | 'write_transfer', ContractKind>> = {
	write_task: 'task',
	file_bug: 'bug',
	write_transfer: 'transfer',
};

/** The longest repository name or URL taken. */
const MAX_REPOSITORY_CHARS = 500;

/** What a write is asked for. */
export type WriteRequest = {
	readonly kind: ContractKind;
	readonly text: string;
	/** The tool's `repository`: a name or a remote URL that pickup maps to a checkout. */
	readonly repository: string | null;
	readonly writer: ContractWriter;
	/** The host's map of repositories to checkouts: a mapped one is checked there now. */
	readonly repositories: RepositoryMap;
	/** The writer's token makes its contracts ready at once; `readyBy` is the person who set that policy. */
	readonly readyAtOnce: {readonly by: string} | null;
	/** Where a refusal is kept in the rejects table: serve or mcp. */
	readonly origin: string;
	readonly now?: number;
};

/** A contract stored (or found stored already: the same writer, repository and text). */
export type WriteResult = {
	readonly id: string;
	readonly kind: ContractKind;
	readonly title: string;
	readonly state: IntakeRecord['state'];
	readonly isNew: boolean;
	readonly warnings: readonly string[];
	readonly guesses: readonly string[];
};

function refuse(origin: string, ledger: Ledger, message: string, problems: readonly ContractProblem[] = []): never {
	// Field names and messages only: the text may hold a credential, and it is never kept here.
	const reason = [message, ...problems.map(problem => `${problem.field}: ${problem.message}`)].join('\n');
	try {
		ledger.writer.reject({origin, line: null, reason, raw: null});
	} catch {
		// A ledger that cannot take the record (read-only, locked): the refusal stands.
	}
	throw new HandoffError(message, problems);
}

/** The same writer writing the same text for the same repository gets the same id: a retried call stores nothing new. */
export function storedContractId(kind: string, owner: string, repository: string | null, text: string): string {
	const digest = createHash('sha256')
		.update(`${kind}\u0000${owner}\u0000${repository ?? ''}\u0000${text}`)
		.digest('hex');
	return `ct-${digest.slice(0, 12)}`;
}

function problemLine(problem: ContractProblem): string {
	return `${problem.field}: ${problem.message}`;
}

/** Refuses what is not plain text of a contract's size, naming the field (before anything parses it). */
function readableInput(request: WriteRequest, ledger: Ledger): void {
	const where = request.origin;
	if (Buffer.byteLength(request.text) > MAX_CONTRACT_BYTES)
		refuse(where, ledger, `contract: over ${MAX_CONTRACT_BYTES / 1024} KiB; a contract is a page or a few`);
	if (request.text.trim() === '') refuse(where, ledger, 'contract: empty; give the contract as Markdown or YAML');
	const textIssue = textProblem('contract', request.text);
	if (textIssue !== null) refuse(where, ledger, textIssue);
	if (request.repository !== null) {
		const repositoryIssue =
			textProblem('repository', request.repository) ??
			(request.repository.length > MAX_REPOSITORY_CHARS || /\n/.test(request.repository)
				? `repository: one name or URL, at most ${MAX_REPOSITORY_CHARS} characters`
				: null);
		if (repositoryIssue !== null) refuse(where, ledger, repositoryIssue);
	}
}

/**
 * Checks a contract's text as `contract check` would and stores it as a draft (or ready at once,
 * under the token's policy). Refused, with one problem per field, when the check finds an error,
 * when the text is of another kind than the tool writes, or when it is not plain text.
 */
export function writeContract(ledger: Ledger, request: WriteRequest): WriteResult {
	readableInput(request, ledger);
	const checked = checkContractText({
		text: request.text,
		name: 'contract',
		format: formatOfText(request.text),
		baseDir: process.cwd(),
		facts: mappedRepositoryFacts(request.repositories, request.repository),
		kind: request.kind,
	});
	const unread = unreadContract(checked);
	if (unread !== null) refuse(request.origin, ledger, unread);
	const decoded = valueProblem(checked.canonical);
	if (decoded !== null) refuse(request.origin, ledger, `contract: ${decoded}`);
	if (checked.kind !== null && checked.kind !== request.kind) {
		const tool = Object.entries(WRITE_TOOLS).find(([, kind]) => kind === checked.kind)?.[0] ?? 'another tool';
		refuse(
			request.origin,
			ledger,
			`contract: this is a ${checked.kind} contract; this tool writes a ${request.kind}: use ${tool}`,
		);
	}
	const errors = checked.problems.filter(problem => problem.severity === 'error');
	if (!checked.isValid || checked.contract === null)
		refuse(
			request.origin,
			ledger,
			`contract: invalid ${request.kind} contract, not stored: fix every line and call again`,
			errors,
		);
	const contract = checked.contract;
	const repository = request.repository ?? contextMapOf(contract)?.repository ?? null;
	const id = storedContractId(request.kind, request.writer.owner, repository, request.text);
	const warnings = checked.problems.filter(problem => problem.severity === 'warning').map(problemLine);
	// The fields the writer marked as guesses, as contract check reads them (src/core/contract/markers.ts).
	const guesses = [...new Set(checked.guesses.map(guess => guess.field))];
	const at = request.now ?? Date.now();
	const events: NewEvent[] = [
		{
			taskId: id,
			type: EventType.contractDrafted,
			at,
			source: request.writer.via,
			dedupKey: `${EventType.contractDrafted}:${id}`,
			data: {
				contractId: id,
				kind: request.kind,
				title: titleOf(contract),
				format: checked.format,
				digest: checked.digest,
				bytes: Buffer.byteLength(request.text),
				repository,
				writer: {...request.writer},
				checks: [...acceptanceLines(contract)],
				guesses,
				warnings,
			},
		},
		{
			taskId: id,
			type: EventType.contractText,
			at,
			source: request.writer.via,
			dedupKey: `${EventType.contractText}:${id}`,
			data: {contractId: id, text: request.text, digest: checked.digest},
		},
	];
	if (request.readyAtOnce !== null)
		events.push({
			taskId: id,
			type: EventType.contractReadied,
			at,
			source: request.writer.via,
			dedupKey: `${EventType.contractReadied}:${id}:policy`,
			data: {contractId: id, by: request.readyAtOnce.by, how: 'policy', osUser: null, uid: null},
		});
	const {appended} = ledger.writer.append(events);
	const record = intakeRecord(ledger.reader, id);
	return {
		id,
		kind: request.kind,
		title: titleOf(contract),
		state: record?.state ?? 'draft',
		isNew: appended > 0,
		warnings,
		guesses,
	};
}

/**
 * A person marks a stored contract ready (the person's check is the caller's: src/gates/handover.ts).
 * Refused when it is ready already or accepted, or taken or handed in with someone to accept it
 * (a draft, or one passed back or sent back, is made ready); the record is the one every
 * contract gets (recordContractReady, keyed by the contract's id), so when the contract names no
 * acceptor this person accepts its work, as with `contract ready FILE`.
 */
export function recordStoredReady(
	ledger: Ledger,
	id: string,
	person: ReadyRequest['person'],
	source = 'cli',
): {readonly record: IntakeRecord; readonly ready: ReadyResult} {
	return ledger.writer.transaction(() => {
		const record = intakeRecord(ledger.reader, id);
		if (record === undefined) throw new HandoffError(`no stored contract ${id} (list_work, snapshot --json list them)`);
		if (record.state === 'ready') throw new HandoffError(`${id} is ready already (marked by ${record.readied?.by ?? 'someone'})`);
		const text = contractTextOf(ledger.reader, id);
		const contract = text === null ? null : storedContractOf(record, text.text);
		// Taken or handed in, it may still wait for someone to accept it (it names nobody, and nobody
		// named themselves: it was made ready on another host of the fleet, or by a policy); a person
		// names themselves then, as `contract ready FILE` does after a take.
		const isUnnamed =
			contract !== null && Object.keys(acceptorsOf(contract)).length === 0 && namedAcceptorOf(ledger, id) === null;
		const isHeld = record.state === 'taken' || record.state === 'handed in';
		if (record.state === 'accepted' || (isHeld && !isUnnamed))
			throw new HandoffError(
				`${id} is ${record.state}${record.claim ? ` (claim ${record.claim.taskId})` : ''}: nothing to make ready`,
			);
		const ready = recordContractReady(ledger, {
			contractKey: id,
			contract: id,
			digest: record.digest,
			namedInContract: contract === null ? [] : Object.keys(acceptorsOf(contract)),
			operator: contract === null ? null : operatorOf(contract),
			person,
			source,
		});
		return {record: intakeRecord(ledger.reader, id) ?? record, ready};
	});
}

/** A stored contract's text read into the model (its repository questions are pickup's, not asked here). */
function storedContractOf(record: IntakeRecord, text: string): Contract | null {
	return checkStoredContract(record, text, new Map()).contract;
}

/** Every stored contract, newest first. */
export function listIntake(ledger: Ledger): IntakeRecord[] {
	return [...readIntake(ledger.reader).values()].sort((a, b) => b.writtenAt - a.writtenAt);
}

/** One acceptance line with its evidence and its verdict, as `get_work` shows it. */
export type LineVerdict = {
	readonly line: number;
	readonly check: string;
	readonly evidence: {readonly command: string | null; readonly exitCode: number | null} | null;
	/** not handed in, waiting (for the acceptor), accepted, sent back. */
	readonly verdict: 'not handed in' | 'waiting' | 'accepted' | 'sent back';
};

/** A stored contract in full, as `get_work` returns it: its record, its claim's notes, its hand-in, a verdict per line. */
export type WorkDetail = IntakeRecord & {
	readonly notes: readonly {readonly at: string; readonly note: string; readonly by: string}[];
	readonly lines: readonly LineVerdict[];
	readonly text: string | null;
};

type AfterEntry = {check?: unknown; command?: unknown; exit_code?: unknown};

function afterEntries(evidence: unknown): AfterEntry[] {
	const after = (evidence as {after?: unknown} | null)?.after;
	return Array.isArray(after) ? (after as AfterEntry[]) : [];
}

function lineVerdict(record: IntakeRecord): LineVerdict['verdict'] {
	if (record.state === 'accepted') return 'accepted';
	if (record.state === 'handed in') return 'waiting';
	if (record.state === 'rejected') return 'sent back';
	return 'not handed in';
}

/** Everything known about one stored contract. */
export function workDetail(ledger: Ledger, id: string): WorkDetail {
	const record = intakeRecord(ledger.reader, id);
	if (record === undefined) throw new HandoffError(`no stored contract ${id} (list_work lists them)`);
	const drafted = draftedEventOf(ledger.reader, id);
	const claimId = record.claim?.taskId ?? null;
	const events = claimId === null ? [] : ledger.reader.eventsOf(claimId);
	const notes = events.flatMap(event =>
		event.type === EventType.claimProgressed
			? [{at: new Date(event.at).toISOString(), note: event.data.note ?? '', by: event.data.actor ?? event.data.holder ?? ''}]
			: [],
	);
	const handedIn = [...events].reverse().find(event => event.type === EventType.claimHandedIn);
	const after = handedIn?.type === EventType.claimHandedIn ? afterEntries(handedIn.data.evidence) : [];
	const verdict = lineVerdict(record);
	const lines = (drafted?.data.checks ?? []).map((check, index): LineVerdict => {
		const entry = after.find(item => item.check === index + 1);
		return {
			line: index + 1,
			check,
			evidence:
				entry === undefined
					? null
					: {
							command: typeof entry.command === 'string' ? entry.command : null,
							exitCode: typeof entry.exit_code === 'number' ? entry.exit_code : null,
						},
			verdict: entry === undefined && verdict !== 'not handed in' ? 'not handed in' : verdict,
		};
	});
	return {...record, notes, lines, text: contractTextOf(ledger.reader, id)?.text ?? null};
}
