import type {EventOfType, LedgerEvent} from '../events.ts';
import type {FamilyMember} from '../family.ts';
import type {Status} from '../status.ts';
import type {Task} from '../task.ts';

/** Whose rows a bundle holds. */
export type RowsHost = {
	/** The ledger's random host id (docs/fleet.md). */
	readonly id: string;
	/** What its tasks and entries are shown with: its label on a fleet, the machine's host name on a local ledger (null when not given). */
	readonly label: string | null;
	/** On a fleet: when the host last shipped, and the last seq the fleet holds (the snapshot's `hosts[]`). */
	readonly synced?: {readonly lastSyncedAt: number; readonly lastSeq: number};
};

/**
 * The rows one host provides for a read: everything its human queue, its gates and a board round
 * are computed from. A store fills it with plain reads; no rule is applied on the way.
 */
export type HostRows = {
	readonly host: RowsHost;
	/**
	 * The failures and the successes that answer them: at least every task that ended within the
	 * failed window failed or done with exit 0 (the queue drops the rest anyway, and a store reading
	 * only those skips a day of helpers that ended done); a board's held tasks give more.
	 */
	readonly recentTasks: readonly Task[];
	/**
	 * The `need.raised` events that may still be current, oldest first: every need from a source
	 * not in `answeredBySession`, and of the others those whose task is open and has done nothing
	 * since (or has no row). The queue's rule decides on these; a long history holds thousands more.
	 */
	readonly needs: readonly EventOfType<'need.raised'>[];
	/** The rows of the needs' tasks that are not among the recent tasks (a need may outlive its task's row). */
	readonly needTasks: readonly Task[];
	/** The host's events of GATE_EVENT_TYPES (reviews, disagreements, work orders, acknowledgements, closers), oldest first. */
	readonly gateEvents: readonly LedgerEvent[];
};

/**
 * A helper that has ended and whose parent is listed, as a snapshot that folds helpers reads it
 * (SnapshotRequest.foldHelpers): the fields the family tree, the lane counts and `unseen` read, not
 * its whole document. 100,000 ended helpers of one session are 76 MB of task documents, parsed and
 * held only to be counted in their parent's row (docs/tree-and-cost.md, "Measured").
 */
export type FoldedHelper = FamilyMember &
	Pick<Task, 'createdAt' | 'stallSeconds' | 'seenBy'> & {
		/** Tells it from a whole task: it has no title, no cwd, nothing a row of its own would show. */
		readonly isFoldedHelper: true;
	};

/** One task of a snapshot's window: the whole task, or an ended helper folded under its listed parent. */
export type ViewRow<T extends Task = Task> = T | FoldedHelper;

/** Whether a row of the window is a whole task (not a folded helper's few fields). */
export function isWholeTask<T extends Task>(row: ViewRow<T>): row is T {
	return !('isFoldedHelper' in row);
}

/** A host's rows for a snapshot: its queue and gate rows, the tasks of the window and its counts. */
export type SnapshotRows = HostRows & {
	/**
	 * Tasks not ended, or ended at or after the window's start (every task with no window), newest
	 * first. Whole tasks, but where the request asked to fold helpers: then a store may give each
	 * ended helper whose parent is listed here (in the window and not merged) as a FoldedHelper.
	 */
	readonly viewTasks: readonly ViewRow[];
	/** Tasks per status over the host's whole ledger. */
	readonly statusCounts: Readonly<Record<Status, number>>;
};
