import {spawnSync} from 'node:child_process';
import {statSync} from 'node:fs';
import {join} from 'node:path';
import {stringify} from 'yaml';
import {EventType} from '../../core/events.ts';
import type {DiffFile, PacketInput} from '../../core/review/packet.ts';
import {AgentFileError, readAgentText} from '../../ledger/agent-files.ts';
import type {Ledger} from '../../ledger/open-ledger.ts';
import {ReviewGateError, type ReviewSubject} from './subject.ts';

/** The largest `--report` read (docs/review.md): the worker writes it, so it is bounded. */
const MAX_REPORT_BYTES = 4 * 1024 * 1024;
/** An untracked file larger than this is listed, not read into the diff. */
const UNTRACKED_READ_LIMIT = 1024 * 1024;
const GIT_BUFFER = 512 * 1024 * 1024;

function git(cwd: string, args: readonly string[], okCodes: readonly number[] = [0]): string | null {
	const result = spawnSync('git', ['-C', cwd, ...args], {
		encoding: 'utf8',
		maxBuffer: GIT_BUFFER,
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	if (result.error || result.status === null || !okCodes.includes(result.status)) return null;
	return result.stdout;
}

/** Splits `git diff` output into one text per file, keyed by the path on the `b/` side. */
function splitByFile(diff: string): Map<string, string> {
	const files = new Map<string, string>();
	const parts = diff.split(/^(?=diff --git )/m).filter(part => part.startsWith('diff --git '));
	for (const part of parts) {
		const plus = /^\+\+\+ b\/(.+)$/m.exec(part)?.[1];
		const header = /^diff --git a\/.+ b\/(.+)$/m.exec(part)?.[1];
		const path = (plus ?? header ?? '').replace(/^"|"$/g, '');
		files.set(path, part);
	}
	return files;
}

function lineCounts(diff: string): {added: number | null; removed: number | null} {
	if (/^Binary files .* differ$/m.test(diff) || /^GIT binary patch$/m.test(diff)) return {added: null, removed: null};
	let added = 0;
	let removed = 0;
	for (const line of diff.split('\n')) {
		if (line.startsWith('+++') || line.startsWith('---')) continue;
		if (line.startsWith('+')) added += 1;
		else if (line.startsWith('-')) removed += 1;
	}
	return {added, removed};
}

function untrackedFile(root: string, path: string): DiffFile {
	let size = 0;
	try {
		size = statSync(join(root, path)).size;
	} catch {
		// Gone since it was listed: shown as an empty new file.
	}
	if (size > UNTRACKED_READ_LIMIT) {
		const stub = `diff --git a/${path} b/${path}\nnew file (untracked, ${size} bytes): too large to show; open it\n`;
		return {path, withContext: stub, withoutContext: stub, added: null, removed: null};
	}
	const diff = git(root, ['diff', '--no-index', '--no-color', '--no-ext-diff', '--', '/dev/null', path], [0, 1]) ?? '';
	return {path, withContext: diff, withoutContext: diff, ...lineCounts(diff)};
}

/**
 * The task-local diff: from the revision recorded when the task started to the working tree,
 * tracked changes (staged or not, commits made since included) and new untracked files, each file
 * with and without unchanged context.
 */
export function collectDiff(cwd: string | null, base: string | null): PacketInput['diff'] {
	if (cwd === null) return {base, note: 'the ledger records no folder for this task: no diff', files: []};
	const root = git(cwd, ['rev-parse', '--show-toplevel'])?.trim();
	if (!root) return {base, note: `${cwd} is not a git work tree: no diff`, files: []};
	let from = base;
	let note: string | null = null;
	if (from === null || git(root, ['cat-file', '-e', `${from}^{commit}`]) === null) {
		note =
			from === null
				? 'no revision was recorded when the task started: the diff is against HEAD (uncommitted changes only)'
				: `the recorded revision ${from.slice(0, 12)} is not in ${root}: the diff is against HEAD`;
		from = git(root, ['rev-parse', '--verify', '--quiet', 'HEAD'])?.trim() || null;
	}
	const range = from === null ? [] : [from];
	const common = ['diff', '--no-color', '--no-ext-diff', '-M', ...range, '--'];
	const full = from === null ? '' : (git(root, common) ?? '');
	const bare = from === null ? '' : (git(root, ['diff', '--no-color', '--no-ext-diff', '-M', '-U0', ...range, '--']) ?? '');
	const withContext = splitByFile(full);
	const withoutContext = splitByFile(bare);
	const files: DiffFile[] = [...withContext.entries()].map(([path, text]) => ({
		path,
		withContext: text,
		withoutContext: withoutContext.get(path) ?? text,
		...lineCounts(withoutContext.get(path) ?? text),
	}));
	const untracked = (git(root, ['ls-files', '--others', '--exclude-standard', '-z']) ?? '').split('\0').filter(Boolean);
	for (const path of untracked) files.push(untrackedFile(root, path));
	return {base: from, note, files};
}

/** Output of a shell command run in `cwd`, stdout and stderr together, and its exit code. */
function runTests(command: string, cwd: string): {output: string; exitCode: number | null} {
	const result = spawnSync('sh', ['-c', `${command} 2>&1`], {
		cwd,
		encoding: 'utf8',
		maxBuffer: GIT_BUFFER,
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	if (result.error) throw new ReviewGateError(`--test: cannot run \`${command}\` in ${cwd}: ${result.error.message}`);
	return {output: result.stdout + result.stderr, exitCode: result.status};
}

type EvidenceAfter = {check?: unknown; command?: unknown; exit_code?: unknown; output?: unknown};

function evidenceTests(evidence: unknown): PacketInput['tests'] {
	const after = (evidence as {after?: unknown} | null)?.after;
	if (!Array.isArray(after) || after.length === 0) return null;
	const lines: string[] = [];
	let worst: number | null = 0;
	for (const entry of after as EvidenceAfter[]) {
		const exit = typeof entry.exit_code === 'number' ? entry.exit_code : null;
		worst = worst === null || exit === null ? null : Math.max(worst, exit);
		lines.push(`$ ${String(entry.command ?? '?')}   # check ${String(entry.check ?? '?')}, exit ${exit ?? 'unknown'}`);
		if (typeof entry.output === 'string' && entry.output !== '') lines.push(...entry.output.replace(/\n$/, '').split('\n'));
	}
	return {from: 'the hand-in evidence', command: null, exitCode: worst, output: lines.join('\n')};
}

/**
 * At most 200 lines of test output: from `--test CMD` run now, else from the hand-in's evidence,
 * else from running the contract's test command in the task's folder; null when none is known.
 */
export function collectTests(subject: ReviewSubject, testCommand: string | null): PacketInput['tests'] {
	const cwd = subject.cwd ?? process.cwd();
	if (testCommand !== null) return {from: '--test, run for this packet', command: testCommand, ...runTests(testCommand, cwd)};
	const fromEvidence = evidenceTests(subject.evidence);
	if (fromEvidence) return fromEvidence;
	const contract = subject.contract?.value;
	const command = contract?.execution?.test_command ?? null;
	if (command && subject.cwd !== null) {
		return {from: "the contract's test command, run for this packet", command, ...runTests(command, subject.cwd)};
	}
	return null;
}

function lastAssistantMessage(ledger: Ledger, taskId: string): string | null {
	const events = ledger.reader.latestEventsOf(taskId, [EventType.agentEvent], 200);
	for (const event of events) {
		const payload = event.data.payload as {last_assistant_message?: unknown} | undefined;
		if (event.data.event === 'Stop' && typeof payload?.last_assistant_message === 'string') return payload.last_assistant_message;
	}
	return null;
}

/**
 * The worker's report: `--report FILE`, else the hand-in's evidence, else the agent's last answer
 * (Claude Code's Stop hook), else the end of the worker's stdout the wrapper kept; null when none.
 */
export function collectReport(
	ledger: Ledger,
	subject: ReviewSubject,
	runTaskId: string,
	reportFile: string | null,
): PacketInput['report'] {
	if (reportFile !== null) {
		try {
			return {from: reportFile, text: readAgentText(reportFile, MAX_REPORT_BYTES)};
		} catch (error) {
			if (error instanceof AgentFileError) throw new ReviewGateError(`--report: cannot read ${error.message}`);
			throw error;
		}
	}
	if (subject.evidence) return {from: 'the hand-in evidence', text: stringify(subject.evidence)};
	const answer = lastAssistantMessage(ledger, runTaskId);
	if (answer !== null) return {from: `the agent's last answer (${runTaskId})`, text: answer};
	const [kept] = ledger.reader.latestEventsOf(runTaskId, [EventType.outputKept], 1);
	if (kept?.data.text) {
		const cut = kept.data.isCut ? `, its last ${Buffer.byteLength(kept.data.text)} of ${kept.data.bytes ?? '?'} bytes` : '';
		return {from: `the worker's stdout (${runTaskId}${cut})`, text: kept.data.text};
	}
	return null;
}
