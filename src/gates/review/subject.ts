import {existsSync} from 'node:fs';
import {dirname, resolve} from 'node:path';
import type {Contract} from '../../core/contract/model.ts';
import {EventType, type EventDataOf} from '../../core/events.ts';
import type {Task} from '../../core/task.ts';
import type {Ledger} from '../../ledger/open-ledger.ts';
import {AGENT_KINDS, type AgentKind} from '../../producers/agent-kind.ts';
import {checkContractFile} from '../../handoff/check-contract.ts';
import {CLAIM_ROLE} from '../../handoff/claims.ts';

/** A refusal or failure of the review gate that the person can act on: one line, exit 1. */
export class ReviewGateError extends Error {
	constructor(message: string) {
		super(message);
		this.name = 'ReviewGateError';
	}
}

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
	/** The first run's brief file (given with `run --brief`), if any. */
	readonly brief: string | null;
};

/** What is reviewed: the task, where its work is, what it was asked, and how to run it again. */
export type ReviewSubject = {
	readonly task: Task;
	/** Where the reviewers run and the diff is taken; null when the ledger does not say. */
	readonly cwd: string | null;
	/** The revision the work started from (the first run's), or null when none was recorded. */
	readonly baseRevision: string | null;
	readonly brief: {readonly path: string | null; readonly note: string | null};
	/** The contract, when there is one (its test command, its title). */
	readonly contract: {readonly file: string; readonly value: Contract | null} | null;
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
		brief: data.brief ?? null,
	};
}

function readContract(file: string | null): ReviewSubject['contract'] {
	if (file === null || !existsSync(file)) return null;
	const checked = checkContractFile(file);
	return {file: checked.file, value: checked.contract};
}

/** Reads what the gate needs to know about a task from the ledger (and its contract file). */
export function reviewSubject(ledger: Ledger, task: Task): ReviewSubject {
	const root = rootOf(ledger, task);
	const worker = workerCommand(task, root);
	if (task.role === CLAIM_ROLE) {
		const [taken] = ledger.reader.latestEventsOf(task.id, [EventType.claimTaken], 1);
		const [handedIn] = ledger.reader.latestEventsOf(task.id, [EventType.claimHandedIn], 1);
		const contract = readContract(taken?.data.contract ?? null);
		const context = contract?.value && 'context' in contract.value ? contract.value.context : null;
		const repository = context && contract ? resolve(dirname(contract.file), context.repository) : null;
		return {
			task,
			cwd: repository,
			baseRevision: context?.base_revision ?? null,
			brief: {path: taken?.data.contract ?? null, note: null},
			contract,
			evidence: handedIn?.data.evidence ?? null,
			worker: null,
			notRerunnable: typeof worker === 'string' ? worker : null,
		};
	}
	const own = registeredOf(ledger, task.id);
	const contractFile = own?.contract ?? root.data?.contract ?? null;
	const briefFile = own?.brief ?? contractFile ?? root.data?.brief ?? null;
	const command = own?.command ?? root.data?.command ?? null;
	return {
		task,
		cwd: task.cwd ?? root.data?.cwd ?? null,
		baseRevision: root.data?.baseRevision ?? own?.baseRevision ?? null,
		brief: {path: briefFile, note: briefFile === null && command ? `the worker ran \`${command}\`` : null},
		contract: readContract(contractFile),
		evidence: null,
		worker: typeof worker === 'string' ? null : worker,
		notRerunnable: typeof worker === 'string' ? worker : null,
	};
}
