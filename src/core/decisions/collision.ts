import {terminalSafe} from '../terminal-text.ts';

// The second writer (docs/decisions.md, "Collisions"): a live task about to write a file another
// live task has edited since that task's last commit. Pure: the hook (src/gates/collision-hook.ts)
// reads the edits, resolves the paths and asks git whether the file still differs from its commit.

/** What the person set for a repository (docs/config.md, `collisions`). */
export const COLLISION_POLICIES = ['hold', 'warn', 'off'] as const;
export type CollisionPolicy = (typeof COLLISION_POLICIES)[number];
export const DEFAULT_COLLISION_POLICY: CollisionPolicy = 'hold';

/** The tools whose calls write one named file, and the field that names it. */
export const EDIT_TOOLS: Readonly<Record<string, string>> = {
	Edit: 'file_path',
	Write: 'file_path',
	MultiEdit: 'file_path',
	NotebookEdit: 'notebook_path',
};

/** One edit another task made: its task, the file's real path, when. */
export type PastEdit = {readonly taskId: string; readonly file: string; readonly at: number};

/** The other writer of a file: the newest edit of it by a task that is not this one nor of its tree. */
export type Collision = {readonly file: string; readonly otherTask: string; readonly otherEditAt: number};

/** The file a call writes, as the agent named it, or null for any other call. */
export function editedFileOf(toolName: string, toolInput: unknown): string | null {
	const field = EDIT_TOOLS[toolName];
	if (field === undefined || toolInput === null || typeof toolInput !== 'object' || Array.isArray(toolInput)) return null;
	const value = (toolInput as Record<string, unknown>)[field];
	return typeof value === 'string' && value.length > 0 ? value : null;
}

/** Whether two task ids are one tree: a helper's id is its parent's and `.` and more. */
export function isSameTree(a: string, b: string): boolean {
	return a === b || a.startsWith(`${b}.`) || b.startsWith(`${a}.`);
}

/**
 * The newest edit of `file` by another live task (`edits` are those of live tasks only), or null.
 * `isUncommitted` says whether the file still differs from its last commit: once the other
 * writer committed it (and nothing changed it since) its edit no longer holds anyone.
 */
export function findCollision(
	self: string,
	file: string,
	edits: readonly PastEdit[],
	isUncommitted: (file: string) => boolean,
): Collision | null {
	let newest: PastEdit | null = null;
	for (const edit of edits) {
		if (edit.file !== file || isSameTree(edit.taskId, self)) continue;
		if (newest === null || edit.at > newest.at) newest = edit;
	}
	if (newest === null || !isUncommitted(file)) return null;
	return {file, otherTask: newest.taskId, otherEditAt: newest.at};
}

/** The reason the agent reads (and the person sees): both tasks, the file, the other's last edit (UTC). */
export function collisionReason(self: string, collision: Collision, decisionId: string | null): string {
	const when = new Date(collision.otherEditAt)
		.toISOString()
		.replace('T', ' ')
		.replace(/\.\d+Z$/, ' UTC');
	const held = decisionId === null ? '' : `; held as ${decisionId} until a person answers`;
	return terminalSafe(
		`controlroom: ${collision.file} was edited by task ${collision.otherTask} at ${when}, not committed yet; ` +
			`task ${self} may not write it now${held}. Work on something else or wait; do not retry this edit at once.`,
	);
}

/** What the hook does for one write, given the repository's policy and any earlier question about it. */
export type CollisionAction =
	| {readonly kind: 'pass'}
	/** A person's allow for exactly this task and these arguments, used now. */
	| {readonly kind: 'allowed'; readonly decisionId: string}
	| {readonly kind: 'deny'; readonly reason: string}
	| {readonly kind: 'defer'; readonly reason: string}
	| {readonly kind: 'ask'; readonly collision: Collision}
	| {readonly kind: 'warn'; readonly collision: Collision};

/** An earlier collision question of this task for these arguments (or this call id). */
export type EarlierQuestion = {
	readonly decisionId: string;
	readonly state: 'open' | 'answered' | 'used';
	readonly answer: 'allow' | 'deny' | null;
	readonly reason: string | null;
	/** True when it was asked for this very call (a resumed `claude -p` asks again for the same id). */
	readonly isThisCall: boolean;
};

/**
 * The rule, in order: a question already asked for this very call (a resumed headless run) is the
 * resume's to carry, so the hook says nothing; an answered, unused allow for the same arguments
 * lets this call by (once); an answered deny is given back (once); a question still waiting holds
 * the call again without asking twice; otherwise a collision is asked (hold), noted (warn) or
 * ignored (off).
 */
export function collisionAction(input: {
	readonly policy: CollisionPolicy;
	readonly isHeadless: boolean;
	readonly earlier: EarlierQuestion | null;
	readonly collision: Collision | null;
}): CollisionAction {
	const {policy, isHeadless, earlier, collision} = input;
	if (policy === 'off') return {kind: 'pass'};
	if (earlier !== null) {
		if (earlier.isThisCall && (earlier.state !== 'open' || isHeadless)) {
			return earlier.state === 'open' ? {kind: 'defer', reason: 'still waiting for a person'} : {kind: 'pass'};
		}
		if (earlier.state === 'answered' && earlier.answer === 'allow') return {kind: 'allowed', decisionId: earlier.decisionId};
		if (earlier.state === 'answered' && earlier.answer === 'deny') {
			return {kind: 'deny', reason: earlier.reason ?? `controlroom: a person denied this edit (${earlier.decisionId})`};
		}
		if (earlier.state === 'open') {
			const reason = `controlroom: this edit waits for a person (${earlier.decisionId}); another task edited the file first`;
			return isHeadless ? {kind: 'defer', reason} : {kind: 'deny', reason};
		}
	}
	if (collision === null) return {kind: 'pass'};
	if (policy === 'warn') return {kind: 'warn', collision};
	return {kind: 'ask', collision};
}

/**
 * The policy for a checkout (`collisions` in the config file, docs/config.md): the entry of the
 * checkout's root or of the nearest folder above it, else `*`, else hold.
 */
export function collisionPolicyFor(map: Readonly<Record<string, CollisionPolicy>>, checkoutRoot: string): CollisionPolicy {
	let best: string | null = null;
	for (const key of Object.keys(map)) {
		if (key === '*') continue;
		const folder = key.length > 1 && key.endsWith('/') ? key.slice(0, -1) : key;
		const isAbove = checkoutRoot === folder || checkoutRoot.startsWith(folder === '/' ? '/' : `${folder}/`);
		if (isAbove && (best === null || folder.length > best.length)) best = key;
	}
	return (best === null ? map['*'] : map[best]) ?? DEFAULT_COLLISION_POLICY;
}
