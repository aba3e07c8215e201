import type {Status} from './status.ts';

// Seen and unseen (docs/tmux.md): a task that finished stays marked until the person looks at it.
// Who has looked is folded into the task from `task.seen` events, per person, and forgotten each
// time the task finishes anew (a run that ends, then ends otherwise, is news again).

/** The statuses that are finished work a person wants to see: not an untracked process that went away. */
const FINISHED: ReadonlySet<Status> = new Set<Status>(['done', 'failed', 'stopped', 'lost']);

/** Whether a task in this status can be unseen. */
export function isFinishedWork(status: Status): boolean {
	return FINISHED.has(status);
}

/** What a task keeps of who saw it: each person's name, and when they looked (ms). */
export type SeenBy = Readonly<Record<string, number>>;

type SeenFacts = {readonly status: Status; readonly seenBy?: SeenBy | undefined};

/**
 * Whether `person` has seen the task since it finished: true or false for finished work, null for
 * a task still running (or one that cannot be unseen), and null when nobody is asking (a board
 * with no person, such as a fleet board: docs/tmux.md).
 */
export function seenState(task: SeenFacts, person: string | null): boolean | null {
	if (person === null || !isFinishedWork(task.status)) return null;
	return Object.hasOwn(task.seenBy ?? {}, person);
}

/** Whether `person` has yet to see this task. */
export function isUnseen(task: SeenFacts, person: string | null): boolean {
	return seenState(task, person) === false;
}

/**
 * Who has seen the task after an event: a look at finished work adds the person; the task
 * finishing (or finishing otherwise than it had) forgets everyone; anything else keeps it. The
 * same object comes back when nothing changed, so folding a bulk import allocates nothing here.
 */
export function foldSeen(
	before: SeenFacts | undefined,
	after: SeenFacts,
	seen: {readonly by: string; readonly at: number} | null,
): SeenBy | undefined {
	const isSameStatus = before !== undefined && before.status === after.status;
	if (seen === null) return isSameStatus ? after.seenBy : undefined;
	// A look at a task still running says nothing about its end, which is news when it comes.
	if (!isFinishedWork(after.status) || seen.by === '') return after.seenBy;
	return {...after.seenBy, [seen.by]: seen.at};
}

/**
 * The look the board records when its person presses a key with the cursor on a task: the task's
 * id when it is finished work that person has not seen, else null. A task that ends under a resting
 * cursor, or the row the board starts on, is not seen until a key says someone is at the board.
 */
export function lookToRecord(task: (SeenFacts & {readonly id: string}) | undefined, person: string | null): string | null {
	return task !== undefined && isUnseen(task, person) ? task.id : null;
}
