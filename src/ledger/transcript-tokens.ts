import {closeSync} from 'node:fs';
import {homedir} from 'node:os';
import {basename, dirname, join, normalize} from 'node:path';
import {EventType, newEvent, type NewEvent} from '../core/events.ts';
import {COST_STATE} from '../core/tokens.ts';
import {scanTranscriptText, type CostState, type TranscriptUsage} from '../core/transcript-usage.ts';
import {AgentFileError, openAgentFileUnder, readAt} from './agent-files.ts';
import type {Ledger} from './open-ledger.ts';

/** Most of a transcript read in one go; the rest is read by the next. */
export const MAX_TRANSCRIPT_CHUNK = 4 * 1024 * 1024;
/** The largest transcript read at all: one past it leaves its tokens where they were (docs/hooks.md). */
export const MAX_TRANSCRIPT_BYTES = 2 * 1024 * 1024 * 1024;
/** Step used to walk past one line longer than a whole chunk (a huge tool result). */
const SKIP_STEP = 1024 * 1024;
const NEWLINE = 0x0a;

/** What one incremental read of a transcript found, before it is committed. */
export type TranscriptRead = {
	readonly path: string;
	readonly taskId: string;
	/** The stored cursor this read began from (null: none); the commit checks it is unchanged. */
	readonly cursorOffset: number | null;
	readonly fromOffset: number;
	readonly toOffset: number;
	readonly lastMessageId: string | null;
	readonly usage: TranscriptUsage;
	readonly compactions: number;
	readonly costState: CostState | null;
	readonly compactionsAfterCostState: number;
	/** When the newest line read was written: its own timestamp, else the file's modification time. */
	readonly lastAt: number | null;
	/**
	 * A run joining a session it did not begin (a resume): the run's start, before which lines are
	 * not its own; null when every line read counts (see runStartOf).
	 */
	readonly notBefore?: number | null;
	/** With notBefore: Claude's count of the session before the run, when this read passed one. */
	readonly costStateBefore?: CostState | null;
	/** With notBefore: whether the read reached the run's own lines. */
	readonly reachedRun?: boolean;
	/** With notBefore: lines of earlier runs passed over. */
	readonly linesBefore?: number;
};

/**
 * A transcript to read, the task its tokens count on, and the folders it may be read from (the
 * `projects/` folder of Claude's config folder): a path from a payload is the agent's to choose.
 */
export type TranscriptTarget = {
	readonly path: string;
	readonly taskId: string;
	readonly skipSidechain: boolean;
	readonly roots: readonly string[];
};

function text(value: unknown): string | null {
	return typeof value === 'string' && value.length > 0 ? value : null;
}

/**
 * Where Claude's transcripts may be read from: `projects/` under its config folder, which is
 * CLAUDE_CONFIG_DIR as the agent's hook saw it, else as this process sees it, else `~/.claude`.
 */
export function transcriptRoots(configDir: string | null, env: NodeJS.ProcessEnv = process.env): string[] {
	const folders = [configDir, env['CLAUDE_CONFIG_DIR'] ?? null, join(homedir(), '.claude')];
	return [
		...new Set(
			folders
				.filter((folder): folder is string => folder !== null && folder !== '')
				.map(folder => join(normalize(folder), 'projects')),
		),
	];
}

/** The `projects/` folder a transcript's path lies under (what it was checked against when first read), or null. */
export function projectsRootOf(path: string): string | null {
	const at = path.lastIndexOf('/projects/');
	return at < 0 ? null : path.slice(0, at + '/projects'.length);
}

/**
 * A helper's own transcript, beside its session's: `<session>/subagents/agent-<id>.jsonl` next to
 * `<session>.jsonl` (Claude Code 2.1.328). SubagentStart does not name it; SubagentStop does.
 */
function helperTranscriptOf(sessionTranscript: string, agentId: string): string {
	return join(dirname(sessionTranscript), basename(sessionTranscript, '.jsonl'), 'subagents', `agent-${agentId}.jsonl`);
}

/**
 * The transcripts a Claude payload names, with the tasks the mapping put its events on: the
 * session's own transcript counts on the session's task (sidechain lines skipped), a helper's (its
 * `agent_transcript_path` on SubagentStop, or where it will be on SubagentStart) on the helper's
 * task. Taken from the mapped events, so tokens land wherever the mapping put the session.
 */
export function transcriptTargets(payload: Record<string, unknown>, events: readonly NewEvent[]): TranscriptTarget[] {
	const sessionEvent = events.find(event => event.type === EventType.agentEvent);
	if (!sessionEvent || sessionEvent.source !== 'claude') return [];
	const roots = transcriptRoots(sessionEvent.type === EventType.agentEvent ? (sessionEvent.data.configDir ?? null) : null);
	const targets: TranscriptTarget[] = [];
	const main = text(payload['transcript_path']);
	if (main) targets.push({path: main, taskId: sessionEvent.taskId, skipSidechain: true, roots});
	// The mapping ignores helpers without an agent_type (the /compact SubagentStop): so do tokens.
	const helper = events.find(event => event.type === EventType.registered && event.data['source'] === 'claude-helper');
	const agentId = text(payload['agent_id']);
	const helperPath = text(payload['agent_transcript_path']) ?? (main && agentId ? helperTranscriptOf(main, agentId) : null);
	if (helperPath && helper) targets.push({path: helperPath, taskId: helper.taskId, skipSidechain: false, roots});
	return targets;
}

/** Finds the offset just past the next newline at or after `from`, or null when the line is still open. */
function nextLineStart(fd: number, from: number, size: number): number | null {
	for (let offset = from; offset < size; offset += SKIP_STEP) {
		const chunk = readAt(fd, offset, Math.min(SKIP_STEP, size - offset));
		const index = chunk.indexOf(NEWLINE);
		if (index >= 0) return offset + index + 1;
	}
	return null;
}

const NOTHING = scanTranscriptText('', {lastMessageId: null, skipSidechain: true});

/**
 * Where a wrapped run's count of a transcript begins: a `controlroom run` is one run, and a
 * session it resumed (`claude -p --resume`/`--continue`) was written to the same transcript by
 * earlier runs, so lines dated before the run was registered are not its own (docs/tree-and-cost.md,
 * "Resumed sessions"). Null once the run's own lines were reached, and for a session's own task
 * (the session is the task) and a helper's transcript (all its own).
 */
function runStartOf(ledger: Ledger, target: TranscriptTarget): number | null {
	if (!target.skipSidechain) return null;
	const task = ledger.reader.task(target.taskId);
	if (!task || task.source !== 'wrapper') return null;
	if (task.hasTranscriptTokens === true || task.sessionBefore?.isInRun === true) return null;
	return task.createdAt;
}

/**
 * Reads what was appended to a transcript since its stored cursor: complete lines only, at most
 * `maxBytes`. The file is opened only under the target's roots, with no link followed, and read
 * only when it is a regular file (agent-files.ts). A transcript that does not exist yet is noted at
 * offset 0 (so it is followed from its first line); one that exists with nothing new, or cannot be
 * read (a `/compact` SubagentStop names one that never exists; a link, a FIFO), gives null. A file
 * shorter than its cursor was replaced: it is read from the start.
 */
export function readTranscriptSinceCursor(
	ledger: Ledger,
	target: TranscriptTarget,
	maxBytes = MAX_TRANSCRIPT_CHUNK,
): TranscriptRead | null {
	const cursor = ledger.reader.transcriptCursor(target.path);
	const base = {path: target.path, taskId: target.taskId, cursorOffset: cursor?.offset ?? null};
	let file: ReturnType<typeof openAgentFileUnder>;
	try {
		file = openAgentFileUnder(target.path, target.roots, MAX_TRANSCRIPT_BYTES);
	} catch (error) {
		const isNotYet = error instanceof AgentFileError && error.problem === 'missing' && target.path.endsWith('.jsonl');
		if (!isNotYet || cursor !== undefined || !isUnderRoots(target)) return null;
		return {...base, fromOffset: 0, toOffset: 0, lastMessageId: null, ...emptyScan(), lastAt: null};
	}
	try {
		const size = file.size;
		const isReplaced = cursor !== undefined && cursor.offset > size;
		const fromOffset = cursor && !isReplaced ? cursor.offset : 0;
		const previousId = cursor && !isReplaced ? cursor.lastMessageId : null;
		if (size <= fromOffset) {
			return cursor === undefined
				? {...base, fromOffset, toOffset: fromOffset, lastMessageId: null, ...emptyScan(), lastAt: null}
				: null;
		}
		const chunk = readAt(file.fd, fromOffset, Math.min(maxBytes, size - fromOffset));
		const end = chunk.lastIndexOf(NEWLINE);
		if (end < 0) {
			if (chunk.length < maxBytes) return null; // the last line is still being written
			// One line longer than a chunk: walk past it unread, so the cursor cannot stick on it.
			const skipTo = nextLineStart(file.fd, fromOffset + chunk.length, size);
			if (skipTo === null) return null;
			return {...base, fromOffset, toOffset: skipTo, lastMessageId: previousId, ...emptyScan(), lastAt: null};
		}
		const notBefore = runStartOf(ledger, target);
		// Taking over another run's cursor: Claude's count as that run last read it is where this run begins.
		const handedOver =
			notBefore !== null && cursor && cursor.taskId !== target.taskId && !isReplaced ? savedCostState(cursor) : null;
		const scan = scanTranscriptText(chunk.subarray(0, end).toString('utf8'), {
			lastMessageId: previousId,
			skipSidechain: target.skipSidechain,
			notBefore,
		});
		return {
			...base,
			fromOffset,
			toOffset: fromOffset + end + 1,
			lastMessageId: scan.lastMessageId,
			usage: scan.usage,
			compactions: scan.compactions,
			costState: scan.costState,
			compactionsAfterCostState: scan.compactionsAfterCostState,
			lastAt: scan.lastAt ?? Math.round(file.stats.mtimeMs),
			notBefore,
			costStateBefore: scan.costStateBefore ?? handedOver,
			reachedRun: scan.reachedRun,
			linesBefore: scan.linesBefore,
		};
	} finally {
		closeSync(file.fd);
	}
}

function emptyScan(): Pick<TranscriptRead, 'usage' | 'compactions' | 'costState' | 'compactionsAfterCostState'> {
	return {usage: NOTHING.usage, compactions: 0, costState: null, compactionsAfterCostState: 0};
}

/** The `cost-state` count a cursor saved, or null (none, or not a count). */
function savedCostState(cursor: {readonly costState: string | null}): CostState | null {
	if (cursor.costState === null) return null;
	try {
		const value = JSON.parse(cursor.costState) as Record<string, unknown>;
		const number = (key: string): number | null =>
			typeof value[key] === 'number' && Number.isFinite(value[key]) && (value[key] as number) >= 0
				? (value[key] as number)
				: null;
		const input = number('input');
		const output = number('output');
		return input === null || output === null ? null : {input, output, costUsd: number('costUsd')};
	} catch {
		return null;
	}
}

/** Whether a path not yet there would be under the target's roots (it is noted only then). */
function isUnderRoots(target: TranscriptTarget): boolean {
	return normalize(target.path) === target.path && target.roots.some(root => target.path.startsWith(`${root}/`));
}

/** Orders transcript paths to be read so that helpers' come before sessions': see commitTranscriptRead. */
export function helpersFirst(a: string, b: string): number {
	return Number(b.includes('/subagents/')) - Number(a.includes('/subagents/'));
}

/** Where a session's helpers' transcripts are: `<session>/subagents/` beside `<session>.jsonl`. */
function helpersFolderOf(sessionTranscript: string): string {
	return `${sessionTranscript.slice(0, -'.jsonl'.length)}/subagents/`;
}

/**
 * Reads each of a session's helpers' transcripts to its end, first: Claude's own count of the
 * session includes its helpers' calls, so what they wrote must be counted before the difference is.
 */
function readHelpersFirst(ledger: Ledger, sessionTranscript: string, event: {at: number; source: string}): void {
	for (const cursor of ledger.reader.transcriptsUnder(helpersFolderOf(sessionTranscript))) {
		const root = projectsRootOf(cursor.path);
		if (root === null) continue;
		const target = {path: cursor.path, taskId: cursor.taskId, skipSidechain: false, roots: [root]};
		for (let chunk = 0; chunk < 16; chunk += 1) {
			const read = readTranscriptSinceCursor(ledger, target);
			if (!read || read.toOffset === read.fromOffset || !commitTranscriptRead(ledger, read, event)) break;
		}
	}
}

/**
 * The tokens this run has counted so far from a session's transcript: its own reports of that path
 * (Claude's count settlements included) and its own helpers' transcripts beside it (their tasks'
 * ids begin with the run's), which Claude's `cost-state` count includes too. A helper of an earlier
 * run of the same session is that run's.
 */
function countedForRun(ledger: Ledger, read: TranscriptRead): {input: number; output: number} {
	let input = 0;
	let output = 0;
	for (const event of ledger.reader.eventsOf(read.taskId)) {
		if (event.type !== EventType.tokensReported || event.data.transcript !== read.path) continue;
		input += event.data.input ?? 0;
		output += event.data.output ?? 0;
	}
	for (const cursor of ledger.reader.transcriptsUnder(helpersFolderOf(read.path))) {
		if (!cursor.taskId.startsWith(`${read.taskId}.`)) continue;
		const helper = ledger.reader.task(cursor.taskId);
		input += helper?.tokens.input ?? 0;
		output += helper?.tokens.output ?? 0;
	}
	return {input, output};
}

/** A difference of two dollar figures, to the nano-dollar (0.018858 - 0.012572 is 0.006286, not 0.0062859999). */
function usdBetween(now: number, before: number): number {
	return Math.max(0, Math.round((now - before) * 1e9) / 1e9);
}

/**
 * Inside the caller's write transaction: moves the cursor and appends the usage as a
 * `task.tokens_reported` DELTA (with the `/compact` runs it saw). Where the span holds Claude's own
 * `cost-state` count, the difference between it and what was counted for the session (the model
 * calls no assistant line shows) follows as one more report, `from: cost-state`, which also says
 * whether a `/compact` came after it. If another reader moved the cursor since this read, it
 * already counted these lines, so this read is dropped (returns false). Dedup keys name the file
 * and the offsets, so a span of a transcript is counted at most once.
 */
export function commitTranscriptRead(ledger: Ledger, read: TranscriptRead, event: {at: number; source: string}): boolean {
	if ((ledger.reader.transcriptCursor(read.path)?.offset ?? null) !== read.cursorOffset) return false;
	ledger.writer.saveTranscriptCursor({
		path: read.path,
		taskId: read.taskId,
		offset: read.toOffset,
		lastMessageId: read.lastMessageId,
		at: event.at,
		costState: read.costState,
	});
	const key = `tokens:${read.path}:${read.cursorOffset ?? 'new'}>${read.fromOffset}-${read.toOffset}`;
	const envelope = {taskId: read.taskId, at: event.at, source: event.source};
	// A run that resumed a session: what the session spent before it is said once, and never counted here.
	if ((read.notBefore ?? null) !== null && (read.costStateBefore || (read.linesBefore ?? 0) > 0)) {
		const before = read.costStateBefore ?? null;
		const data = {
			transcript: read.path,
			...(before ? {input: before.input, output: before.output, costUsd: before.costUsd} : {}),
			reachedRun: read.reachedRun === true,
		};
		ledger.writer.append([newEvent(EventType.sessionBefore, data, {...envelope, dedupKey: `${key}:session-before`})]);
	}
	if (read.usage.messages > 0 || read.compactions > 0) {
		const data = {...read.usage, transcript: read.path, ...(read.compactions > 0 ? {compactions: read.compactions} : {})};
		ledger.writer.append([newEvent(EventType.tokensReported, data, {...envelope, dedupKey: key})]);
	}
	if (read.costState === null) return true;
	readHelpersFirst(ledger, read.path, event);
	const counted = countedForRun(ledger, read);
	const task = ledger.reader.task(read.taskId);
	// Claude's count is the session's: a resumed run's share is what it grew by since the run began.
	const before = task?.sessionBefore ?? null;
	const runCount = {
		input: read.costState.input - (before?.input ?? 0),
		output: read.costState.output - (before?.output ?? 0),
	};
	const missing = {
		input: Math.max(0, runCount.input - counted.input),
		output: Math.max(0, runCount.output - counted.output),
	};
	const hasMissing = missing.input > 0 || missing.output > 0;
	// Claude's own cost of the run: exact where the table cannot be (a resume, or calls no line shows).
	const isResumed = before !== null && (before.input !== null || before.output !== null);
	if ((isResumed || hasMissing) && read.costState.costUsd !== null && (!isResumed || before.costUsd !== null)) {
		const amount = usdBetween(read.costState.costUsd, before?.costUsd ?? 0);
		const cost = {amount, currency: 'USD', scope: 'tree', from: COST_STATE};
		ledger.writer.append([newEvent(EventType.costReported, cost, {...envelope, dedupKey: `${key}:${COST_STATE}:cost`})]);
	}
	const isPartial = task?.isTokensPartial === true;
	if (!hasMissing && !isPartial) return true;
	const settlement = {
		input: missing.input,
		output: missing.output,
		from: COST_STATE,
		transcript: read.path,
		pendingCompactions: read.compactionsAfterCostState,
	};
	ledger.writer.append([newEvent(EventType.tokensReported, settlement, {...envelope, dedupKey: `${key}:${COST_STATE}`})]);
	return true;
}
