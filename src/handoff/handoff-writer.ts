import {spawnSync} from 'node:child_process';
import {createHash} from 'node:crypto';
import {linkSync, mkdirSync, unlinkSync, writeFileSync} from 'node:fs';
import {join, relative, isAbsolute} from 'node:path';
import {
	didSomething,
	handoffMarkdown,
	type HandoffClaim,
	type HandoffFacts,
	type HandoffRepository,
} from '../core/contract/handoff-text.ts';
import {sessionTimeline} from '../core/contract/handoff-timeline.ts';
import {EventType} from '../core/events.ts';
import {isEnded} from '../core/status.ts';
import type {Task} from '../core/task.ts';
import type {Ledger} from '../ledger/open-ledger.ts';
import {CLAIM_ROLE} from './claims.ts';

/** The folder, inside a repository, where handoffs are written (docs/handoffs.md). */
export const HANDOFF_FOLDER = join('.controlroom', 'handoffs');

/** How long git may take for one question: a handoff is written beside a board round or a session's start. */
const GIT_TIMEOUT_MS = 5000;
/** The most commits a handoff lists; more are counted. */
const MAX_COMMITS = 200;

function git(cwd: string, args: readonly string[]): string | null {
	const result = spawnSync('git', ['-C', cwd, ...args], {encoding: 'utf8', timeout: GIT_TIMEOUT_MS, maxBuffer: 8 * 1024 * 1024});
	return result.status === 0 ? result.stdout : null;
}

const linesOf = (text: string, separator = '\n'): string[] => text.split(separator).filter(line => line !== '');

/** The repository a folder is in (its top level), or null when it is in none. */
export function repositoryRootOf(cwd: string): string | null {
	return git(cwd, ['rev-parse', '--show-toplevel'])?.trim() || null;
}

function commitsOf(root: string, range: readonly string[]): HandoffRepository['commits'] {
	const text = git(root, ['log', `--max-count=${MAX_COMMITS}`, '--format=%H%x00%s%x1e', ...range, '--']);
	if (text === null) return null;
	return linesOf(text, '\x1e')
		.map(record => record.replace(/^\n/, ''))
		.filter(record => record.includes('\0'))
		.map(record => {
			const [revision = '', subject = ''] = record.split('\0');
			return {revision, subject};
		});
}

function filesOfCommits(root: string, revisions: readonly string[]): string[] | null {
	const files = new Set<string>();
	for (const revision of revisions) {
		const text = git(root, ['show', '--name-only', '--format=', revision]);
		if (text === null) return null;
		for (const file of linesOf(text)) files.add(file);
	}
	return [...files].sort();
}

/** What git says of the repository for a session that ran from `startedAt` to `endedAt`. */
function repositoryFacts(
	root: string,
	baseRevision: string | null,
	startedAt: number | null,
	endedAt: number | null,
): HandoffRepository {
	const head = git(root, ['rev-parse', '--verify', '--quiet', 'HEAD'])?.trim() || null;
	const status = git(root, ['status', '--porcelain=v1', '-z', '--untracked-files=all']);
	const uncommitted =
		status === null
			? null
			: linesOf(status, '\0')
					.filter(entry => entry.length > 3)
					.map(entry => entry.slice(3))
					.filter(
						path => !path.startsWith(`${HANDOFF_FOLDER}/`) && path !== '.controlroom/' && !path.startsWith('.controlroom/'),
					);
	const base = baseRevision && git(root, ['cat-file', '-e', `${baseRevision}^{commit}`]) !== null ? baseRevision : null;
	if (head === null) return {root, head, baseRevision: base, commitsFrom: null, commits: [], filesChanged: [], uncommitted};
	if (base !== null) {
		const commits = commitsOf(root, [`${base}..HEAD`]);
		const diff = git(root, ['diff', '--name-only', base, 'HEAD']);
		return {
			root,
			head,
			baseRevision: base,
			commitsFrom: 'base revision',
			commits,
			filesChanged: diff === null ? null : linesOf(diff).sort(),
			uncommitted,
		};
	}
	if (startedAt === null)
		return {root, head, baseRevision: null, commitsFrom: null, commits: null, filesChanged: null, uncommitted};
	// Committer time is in whole seconds: the window is widened to them.
	const since = Math.floor(startedAt / 1000);
	const until = Math.ceil((endedAt ?? Date.now()) / 1000);
	const commits = commitsOf(root, [`--since=@${since}`, `--until=@${until}`, 'HEAD']);
	const filesChanged =
		commits === null
			? null
			: filesOfCommits(
					root,
					commits.map(commit => commit.revision),
				);
	return {root, head, baseRevision: null, commitsFrom: 'session time', commits, filesChanged, uncommitted};
}

function isInside(root: string, path: string | null | undefined): boolean {
	if (!path) return false;
	const inside = relative(root, path);
	return inside === '' || (!inside.startsWith('..') && !isAbsolute(inside));
}

/** Claims not ended whose contract (or its checkout) is in this repository. */
function openClaimsIn(ledger: Ledger, root: string): HandoffClaim[] {
	return ledger.reader
		.tasksWithStatus(['registered', 'running'])
		.filter(task => task.role === CLAIM_ROLE)
		.flatMap(task => {
			const taken = ledger.reader.firstEventOf(task.id, EventType.claimTaken);
			if (!taken || !(isInside(root, taken.data.checkout) || isInside(root, taken.data.contract))) return [];
			const passed = taken.data.passedBack as {reason?: unknown} | null | undefined;
			return [
				{
					id: task.id,
					title: task.title ?? taken.data.contract ?? task.id,
					holder: taken.data.holder ?? 'unknown',
					passedBack: passed && typeof passed.reason === 'string' ? passed.reason : null,
				},
			];
		});
}

/** Why no handoff was written. */
export type NoHandoff = {readonly outcome: 'none'; readonly reason: string};
export type HandoffWritten = {
	readonly outcome: 'written';
	readonly path: string;
	readonly sha256: string;
	readonly bytes: number;
};
/** An automatic handoff another writer wrote first (the ledger's dedup key decided). */
export type HandoffAlready = {readonly outcome: 'already'; readonly path: string | null};

/** The facts a task's handoff is written from, or why there is none to write. */
export function handoffFactsOf(ledger: Ledger, task: Task, at: number): HandoffFacts | NoHandoff {
	if (!isEnded(task.status))
		return {outcome: 'none', reason: `task ${task.id} is still ${task.status}: a handoff is written when it has ended`};
	if (task.role === CLAIM_ROLE) return {outcome: 'none', reason: `task ${task.id} is a claim, not a session`};
	if (!task.cwd) return {outcome: 'none', reason: `task ${task.id} has no recorded folder, so no repository to write into`};
	const root = repositoryRootOf(task.cwd);
	if (root === null) return {outcome: 'none', reason: `task ${task.id} ran in ${task.cwd}, which is not in a git repository`};
	const events = ledger.reader.eventsOf(task.id);
	const registered = events.find(event => event.type === EventType.registered);
	const baseRevision = registered?.type === EventType.registered ? (registered.data.baseRevision ?? null) : null;
	const facts: HandoffFacts = {
		task: {
			id: task.id,
			title: task.title,
			source: task.source,
			status: task.status,
			startedAt: task.startedAt,
			endedAt: task.endedAt,
		},
		timeline: sessionTimeline(events),
		repository: repositoryFacts(root, baseRevision, task.startedAt, task.endedAt),
		openClaims: openClaimsIn(ledger, root),
		at,
	};
	if (!didSomething(facts)) return {outcome: 'none', reason: `task ${task.id} did nothing but read: no handoff`};
	return facts;
}

/** `2026-12-03T17-32-37.428Z-c-d7db9fab3392.md` (`_2.md` for a second in the same millisecond, sorting after it): sorts by time; the task id keeps two sessions apart. */
function handoffName(at: number, taskId: string, attempt: number): string {
	const stamp = new Date(at).toISOString().replace(/:/g, '-');
	return `${stamp}-${taskId}${attempt > 0 ? `_${attempt + 1}` : ''}.md`;
}

/** Puts `text` at a new name in `folder`, never over a file that is there (a hard link fails on EEXIST). */
function placeNew(folder: string, temporary: string, at: number, taskId: string): string {
	for (let attempt = 0; ; attempt += 1) {
		const path = join(folder, handoffName(at, taskId, attempt));
		try {
			linkSync(temporary, path);
			return path;
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 100) throw error;
		}
	}
}

/** The dedup key that makes an automatic handoff once per session, whoever writes it. */
export const autoHandoffKey = (taskId: string): string => `handoff:${taskId}`;

/**
 * Writes a task's handoff into its repository's `.controlroom/handoffs/` and records it
 * (`handoff.written`, with its path and sha256). `auto`: once per session, decided by the
 * ledger's dedup key, so two writers at once write one file; `command`: each call writes one.
 */
export function writeHandoff(
	ledger: Ledger,
	task: Task,
	trigger: 'auto' | 'command',
	at: number = Date.now(),
): HandoffWritten | NoHandoff | HandoffAlready {
	const facts = handoffFactsOf(ledger, task, at);
	if ('outcome' in facts) return facts;
	const text = handoffMarkdown(facts);
	const sha256 = createHash('sha256').update(text).digest('hex');
	const folder = join(facts.repository.root, HANDOFF_FOLDER);
	mkdirSync(folder, {recursive: true});
	const temporary = join(folder, `.${task.id}.${process.pid}.${at}.tmp`);
	writeFileSync(temporary, text, {flag: 'wx', mode: 0o644});
	try {
		const path = placeNew(folder, temporary, at, task.id);
		const {appended} = ledger.writer.append([
			{
				taskId: task.id,
				type: EventType.handoffWritten,
				at,
				source: 'controlroom',
				data: {
					path,
					sha256,
					repository: facts.repository.root,
					revision: facts.repository.head,
					trigger,
					bytes: Buffer.byteLength(text),
				},
				dedupKey: trigger === 'auto' ? autoHandoffKey(task.id) : null,
			},
		]);
		if (appended === 0) {
			// Another writer recorded this session's handoff first: its file stands, this one goes.
			unlinkSync(path);
			const [written] = ledger.reader.latestEventsOf(task.id, [EventType.handoffWritten], 1);
			return {outcome: 'already', path: written?.data.path ?? null};
		}
		return {outcome: 'written', path, sha256, bytes: Buffer.byteLength(text)};
	} finally {
		unlinkSync(temporary);
	}
}
