import {spawn} from 'node:child_process';
import {randomBytes} from 'node:crypto';
import {closeSync, constants, openSync} from 'node:fs';
import {dirname, join} from 'node:path';
import type {Writable} from 'node:stream';
import {AgentFileError, readAgentText, replaceOwnFile} from '../../ledger/agent-files.ts';
import {makePrivateDir, PRIVATE_FILE_MODE} from '../../ledger/private-files.ts';
import type {Ledger} from '../../ledger/open-ledger.ts';
import {checkContractSnapshot} from '../../handoff/check-contract.ts';
import {HandoffError} from '../../handoff/claims.ts';
import {injectContract, renderContract} from '../../handoff/contract-run.ts';
import {DEFAULT_SLOTS} from '../../producers/admission.ts';
import {DEFAULT_BUDGET, DEFAULT_HEARTBEAT_MS, DEFAULT_WRAPPER_GRACE_MS} from '../../producers/wrapper/options.ts';
import {runWrapped} from '../../producers/wrapper/run.ts';
import {ReviewGateError, type WorkerCommand} from './subject.ts';

/** The largest brief carried into a re-run: a contract's own limit (docs/contracts.md). */
const MAX_BRIEF_BYTES = 1024 * 1024;

/**
 * Where the gate keeps a task's packets and briefs: beside the ledger, as the spool is, and as
 * private (a packet holds the diff and the report; docs/ledger.md, "Privacy").
 */
export function reviewFolder(ledger: Ledger, taskId: string): string {
	const folder = join(dirname(ledger.path), 'reviews', taskId.replace(/[^A-Za-z0-9._-]/g, '_'));
	makePrivateDir(folder);
	return folder;
}

/** A worker's next run, ready to start: its id, its command line with the fixes in, its brief file. */
export type Rerun = {
	readonly taskId: string;
	readonly worker: WorkerCommand;
	readonly command: string;
	readonly args: readonly string[];
	readonly briefPath: string;
	/** Where a run started in the background writes its output. */
	readonly logPath: string;
	readonly env: Readonly<Record<string, string>>;
	readonly title: string;
};

function originalBrief(worker: WorkerCommand): string {
	// The contract as it was when the first run started: what the worker wrote into the file since is not its brief.
	if (worker.contractSnapshot !== null) return worker.contractSnapshot.text.trimEnd();
	const file = worker.contract ?? worker.brief;
	if (file !== null) {
		// The worker could have rewritten its brief: read as any file an agent could have written.
		try {
			return readAgentText(file, MAX_BRIEF_BYTES).trimEnd();
		} catch (error) {
			if (!(error instanceof AgentFileError)) throw error;
		}
	}
	return `The worker ran: ${worker.argv.join(' ')}`;
}

/**
 * The worker's command with the fixes added to its brief, as a contract is put in (docs/contracts.md):
 * with a contract, the rendered contract and then the fixes; for `claude -p` and `codex exec`,
 * appended to the prompt; any other command gets them only in CONTROLROOM_FIXES and its brief file.
 */
function commandWithFixes(worker: WorkerCommand, fixesText: string): {command: string; args: readonly string[]} {
	const [command, ...args] = worker.argv;
	if (command === undefined) throw new ReviewGateError(`${worker.rootId}: no command recorded`);
	if (worker.contract !== null) {
		if (worker.contractSnapshot === null) {
			throw new ReviewGateError(
				`cannot run ${worker.rootId} again: its contract was recorded without a snapshot (an older controlroom), and the file may have changed since`,
			);
		}
		const checked = checkContractSnapshot(worker.contractSnapshot.text, worker.contract);
		if (!checked.isValid || checked.contract === null) {
			throw new ReviewGateError(`cannot run ${worker.rootId} again: its contract ${worker.contract} is no longer valid`);
		}
		const rendered = `${renderContract(checked.contract, checked.file)}\n\n${fixesText}`;
		try {
			return {command, args: injectContract(command, args, rendered).args};
		} catch (error) {
			if (error instanceof HandoffError) throw new ReviewGateError(`cannot run ${worker.rootId} again: ${error.message}`);
			throw error;
		}
	}
	try {
		return {command, args: injectContract(command, args, fixesText).args};
	} catch (error) {
		// Not an agent whose prompt we know: the fixes reach it through its environment and brief file.
		if (error instanceof HandoffError) return {command, args};
		throw error;
	}
}

/**
 * Prepares the worker's next run: writes its brief (the original brief, then the fixes) beside
 * the ledger, and puts the fixes into its command line where an agent reads its prompt.
 */
export function prepareRerun(ledger: Ledger, worker: WorkerCommand, fixesText: string, label: string): Rerun {
	const taskId = `w-${randomBytes(5).toString('hex')}`;
	const folder = reviewFolder(ledger, worker.rootId);
	const briefPath = join(folder, `brief-${taskId}.md`);
	replaceOwnFile(briefPath, `${originalBrief(worker)}\n\n---\n\n${fixesText}\n`);
	const {command, args} = commandWithFixes(worker, fixesText);
	return {
		taskId,
		worker,
		command,
		args,
		briefPath,
		logPath: join(folder, `run-${taskId}.log`),
		env: {CONTROLROOM_FIXES: fixesText},
		title: `${worker.title} (${label})`.slice(0, 120),
	};
}

/** Runs the worker again in this process, through the wrapper, until it ends (a review's fix round). */
export async function runRerun(
	ledger: Ledger,
	rerun: Rerun,
	io: {readonly home: string; readonly output: Writable; readonly notice: (line: string) => void},
): Promise<number> {
	return runWrapped({
		ledger,
		command: rerun.command,
		args: rerun.args,
		argv: [rerun.command, ...rerun.args],
		title: rerun.title,
		steps: rerun.worker.steps,
		budget: rerun.worker.budget ?? DEFAULT_BUDGET,
		agent: rerun.worker.agent,
		role: 'worker',
		cwd: rerun.worker.cwd,
		wait: true,
		slots: DEFAULT_SLOTS,
		home: io.home,
		heartbeatMs: DEFAULT_HEARTBEAT_MS,
		graceMs: DEFAULT_WRAPPER_GRACE_MS,
		logFile: null,
		notice: io.notice,
		taskId: rerun.taskId,
		rerunOf: rerun.worker.rootId,
		brief: rerun.briefPath,
		env: rerun.env,
		stdinFile: '/dev/null',
		stdout: io.output,
		stderr: io.output,
	});
}

/** How to start controlroom itself (the board and the CLI know where their binary is). */
export type Launcher = {readonly node: string; readonly bin: string};

/**
 * Starts the worker's next run in the background, through `controlroom run` (so the board that
 * asked is free at once): its output and the wrapper's notices go to a log file beside its brief.
 */
export function startRerun(ledger: Ledger, rerun: Rerun, launcher: Launcher): {readonly pid: number} {
	const logPath = rerun.logPath;
	const worker = rerun.worker;
	const flags = [
		'run',
		'--ledger',
		ledger.path,
		'--task-id',
		rerun.taskId,
		'--rerun-of',
		worker.rootId,
		'--brief',
		rerun.briefPath,
		'--cwd',
		worker.cwd,
		'--title',
		rerun.title,
		'--agent',
		worker.agent,
		'--budget',
		String(worker.budget ?? DEFAULT_BUDGET),
		...(worker.steps === null ? [] : ['--steps', String(worker.steps)]),
		'--log',
		logPath,
		'--',
		rerun.command,
		...rerun.args,
	];
	// Our own file, where the worker can write: a link planted under its name is not followed.
	const log = openSync(
		logPath,
		constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW,
		PRIVATE_FILE_MODE,
	);
	try {
		const child = spawn(launcher.node, [launcher.bin, ...flags], {
			detached: true,
			stdio: ['ignore', log, log],
			env: {...process.env, ...rerun.env},
		});
		// A failed spawn says so by an event; without a listener it would take this process down.
		child.on('error', () => undefined);
		child.unref();
		if (child.pid === undefined) throw new ReviewGateError(`cannot start ${launcher.bin} to run ${worker.rootId} again`);
		return {pid: child.pid};
	} finally {
		closeSync(log);
	}
}
