import {isStoredContractId} from '../../core/contract/intake.ts';
import {draftedEventOf} from '../../ledger/contracts.ts';
import {formatOfText} from '../../core/contract/contract-text.ts';
import {existsSync} from 'node:fs';
import {dirname} from 'node:path';
import {CONTRACT_KINDS, contextMapOf, type Contract, type ContractKind} from '../../core/contract/model.ts';
import {EventType, type EventDataOf} from '../../core/events.ts';
import type {Task} from '../../core/task.ts';
import type {Ledger} from '../../ledger/open-ledger.ts';
import {AGENT_KINDS, type AgentKind} from '../../producers/agent-kind.ts';
import {checkContractFile, checkContractSnapshot, checkContractText, contractDigest} from '../../handoff/check-contract.ts';
import {AgentFileError, readAgentText} from '../../ledger/agent-files.ts';
import {CLAIM_ROLE} from '../../handoff/claims.ts';
import {repositoryDir} from '../../handoff/repository-facts.ts';

export {ReviewGateError} from '../gate-error.ts';

/** How to run a worker again: the first run's command as it was given, where, and on what terms. */
export type WorkerCommand = {
	/** The task whose command this is: the first run, never a re-run of it. */
	readonly rootId: string;
	readonly argv: readonly string[];
	readonly cwd: string;
	readonly title: string;
	readonly agent: AgentKind;
	readonly steps: number | null;
	readonly budget: number | null;
	readonly contract: string | null;
	/** The contract as it was when the first run started (null for a run recorded before snapshots). */
	readonly contractSnapshot: ContractSnapshot | null;
	/** The first run's brief file (given with `run --brief`), if any. */
	readonly brief: string | null;
};

/** A contract's text and sha256 as recorded when its run started or its claim was taken. */
export type ContractSnapshot = {readonly text: string; readonly digest: string};

/** What is reviewed: the task, where its work is, what it was asked, and how to run it again. */
export type ReviewSubject = {
	readonly task: Task;
	/** Where the reviewers run and the diff is taken; null when the ledger does not say. */
	readonly cwd: string | null;
	/** The revision the work started from (the first run's), or null when none was recorded. */
	readonly baseRevision: string | null;
	readonly brief: {readonly path: string | null; readonly note: string | null};
	/**
	 * The contract, when there is one (its test command, its title): as snapshotted when the run
	 * started or the claim was taken, and, when the file no longer matches, one line saying so.
	 */
	readonly contract: {readonly file: string; readonly value: Contract | null; readonly changed: string | null} | null;
	/** A claim's hand-in evidence, as recorded. */
	readonly evidence: unknown;
	/** Null when the task cannot be run again (an agent session started outside the wrapper, a claim). */
	readonly worker: WorkerCommand | null;
	/** Why `worker` is null. */
	readonly notRerunnable: string | null;
};

type Registered = EventDataOf<'task.registered'>;

function registeredOf(ledger: Ledger, taskId: string): Registered | null {
	return ledger.reader.firstEventOf(taskId, EventType.registered)?.data ?? null;
}

/** The first run of a chain of re-runs (a fix round's run, a send-back's run point back to it). */
export function rootOf(ledger: Ledger, task: Task): {readonly id: string; readonly data: Registered | null} {
	let id = task.id;
	let data = registeredOf(ledger, id);
	const seen = new Set([id]);
	while (data?.rerunOf && !seen.has(data.rerunOf)) {
		const parent = registeredOf(ledger, data.rerunOf);
		if (!parent) break;
		id = data.rerunOf;
		seen.add(id);
		data = parent;
	}
	return {id, data};
}

function workerCommand(task: Task, root: {id: string; data: Registered | null}): WorkerCommand | string {
	const data = root.data;
	if (!data || (data.source ?? 'wrapper') !== 'wrapper' || task.source !== 'wrapper') {
		return task.role === CLAIM_ROLE
			? `${task.id} is a claim: its holder does the work, so it cannot be run again (send it back to return the claim)`
			: `${task.id} was not started through \`controlroom run\`: no command is recorded to run it again`;
	}
	if (!data.argv || data.argv.length === 0 || !data.cwd) {
		return `${root.id} was recorded by an older controlroom without its command line: it cannot be run again`;
	}
	const agent = (AGENT_KINDS as readonly string[]).includes(data.agent ?? '') ? (data.agent as AgentKind) : 'generic';
	return {
		rootId: root.id,
		argv: data.argv,
		cwd: data.cwd,
		title: data.title ?? data.argv.join(' ').slice(0, 80),
		agent,
		steps: data.steps ?? null,
		budget: data.budget ?? null,
		contract: data.contract ?? null,
		contractSnapshot: snapshotOf(data.contractText, data.contractDigest),
		brief: data.brief ?? null,
	};
}

function snapshotOf(text: string | null | undefined, digest: string | null | undefined): ContractSnapshot | null {
	return typeof text === 'string' && typeof digest === 'string' ? {text, digest} : null;
}

/** A contract file larger than this is not read to compare it with its snapshot (it changed, whatever it holds). */
const CONTRACT_COMPARE_LIMIT = 4 * 1024 * 1024;

/** Whether the file still holds the snapshot: null when it does, else one line saying how it changed. */
function changeSince(file: string, snapshot: ContractSnapshot, since: string): string | null {
	let now: string;
	try {
		now = contractDigest(readAgentText(file, CONTRACT_COMPARE_LIMIT));
	} catch (error) {
		if (!(error instanceof AgentFileError)) throw error;
		return `the contract ${file} changed since ${since} (${error.message}): read as it was then, nothing in the file now is run`;
	}
	if (now === snapshot.digest) return null;
	return `the contract ${file} changed since ${since} (sha256 ${snapshot.digest.slice(0, 12)} then, ${now.slice(0, 12)} now): read as it was then, nothing in the file now is run`;
}

/**
 * The contract a task works under: its snapshot (the worker may have changed the file since, and
 * what it wrote there is never run), else, for a run recorded before snapshots, the file as it is.
 */
function readContract(
	file: string | null,
	snapshot: ContractSnapshot | null,
	since: string,
	kindOf: (id: string) => ContractKind | undefined = () => undefined,
): ReviewSubject['contract'] {
	if (file === null) return null;
	// A stored contract's text is in the ledger, where no worker writes: it is the snapshot, unchanged.
	if (snapshot !== null && isStoredContractId(file)) {
		const kind = kindOf(file);
		const checked = checkContractText({
			text: snapshot.text,
			name: file,
			format: formatOfText(snapshot.text),
			baseDir: process.cwd(),
			...(kind === undefined ? {} : {kind}),
		});
		return {file, value: checked.contract, changed: null};
	}
	if (snapshot !== null) {
		const checked = checkContractSnapshot(snapshot.text, file);
		return {file: checked.file, value: checked.contract, changed: changeSince(checked.file, snapshot, since)};
	}
	if (!existsSync(file)) return null;
	const checked = checkContractFile(file);
	return {file: checked.file, value: checked.contract, changed: null};
}

/** The kind a stored contract was written as (its text may not say). */
function storedKind(ledger: Ledger): (id: string) => ContractKind | undefined {
	return id => CONTRACT_KINDS.find(kind => kind === draftedEventOf(ledger.reader, id)?.data.kind);
}

/** Reads what the gate needs to know about a task from the ledger (and its contract file). */
export function reviewSubject(ledger: Ledger, task: Task): ReviewSubject {
	const root = rootOf(ledger, task);
	const worker = workerCommand(task, root);
	if (task.role === CLAIM_ROLE) {
		const [taken] = ledger.reader.latestEventsOf(task.id, [EventType.claimTaken], 1);
		const [handedIn] = ledger.reader.latestEventsOf(task.id, [EventType.claimHandedIn], 1);
		const contract = readContract(
			taken?.data.contract ?? null,
			snapshotOf(taken?.data.contractText, taken?.data.contractDigest),
			'the claim was taken',
			storedKind(ledger),
		);
		// A stored contract's checkout on this host was recorded when it was taken; a file's is beside it.
		const repository = taken?.data.checkout ?? (contract?.value ? repositoryDir(dirname(contract.file), contract.value) : null);
		return {
			task,
			cwd: repository,
			baseRevision: (contract?.value ? contextMapOf(contract.value)?.base_revision : undefined) ?? null,
			brief: {path: taken?.data.contract ?? null, note: contract?.changed ?? null},
			contract,
			evidence: handedIn?.data.evidence ?? null,
			worker: null,
			notRerunnable: typeof worker === 'string' ? worker : null,
		};
	}
	const own = registeredOf(ledger, task.id);
	const contractFile = own?.contract ?? root.data?.contract ?? null;
	const snapshot = own?.contract
		? snapshotOf(own.contractText, own.contractDigest)
		: snapshotOf(root.data?.contractText, root.data?.contractDigest);
	const briefFile = own?.brief ?? contractFile ?? root.data?.brief ?? null;
	const command = own?.command ?? root.data?.command ?? null;
	const contract = readContract(contractFile, snapshot, 'the run started', storedKind(ledger));
	return {
		task,
		cwd: task.cwd ?? root.data?.cwd ?? null,
		baseRevision: root.data?.baseRevision ?? own?.baseRevision ?? null,
		brief: {
			path: briefFile,
			note: contract?.changed ?? (briefFile === null && command ? `the worker ran \`${command}\`` : null),
		},
		contract,
		evidence: null,
		worker: typeof worker === 'string' ? null : worker,
		notRerunnable: typeof worker === 'string' ? worker : null,
	};
}
