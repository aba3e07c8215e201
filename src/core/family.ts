import {costOf, reportedCost, type Cost} from './cost.ts';
import type {PriceTable} from './price-table.ts';
import {addUsageByModel, type UsageByModel} from './spend.ts';
import {isEnded} from './status.ts';
import type {Task} from './task.ts';
import {addTokens, UNKNOWN_TOKENS, type Tokens} from './tokens.ts';

/**
 * A helper that says nothing for this long stops counting as alive (docs/tree-and-cost.md): the
 * phantom helpers of other boards, shown stalled for hundreds of hours, are what this avoids. Its
 * parent never turns `lost` because of it.
 */
export const HELPER_IDLE_CUTOFF_SECONDS = 15 * 60;

/** The fields of a task the tree reads. */
export type FamilyMember = Pick<
	Task,
	| 'id'
	| 'parentId'
	| 'status'
	| 'lastSeenAt'
	| 'endedAt'
	| 'tokens'
	| 'isTokensPartial'
	| 'spend'
	| 'hasUnpricedTokens'
	| 'reportedCost'
	| 'telemetry'
>;

/** What the tree says of one task. */
export type FamilyFacts = {
	/** Its helpers' ids, oldest first (as listed). */
	readonly children: readonly string[];
	/** Its helpers, and theirs, still alive: not ended, heard from within the cutoff, not outlived by an ended parent. */
	readonly helpersActive: number;
	/** Helpers under it at any depth. */
	readonly helpersTotal: number;
	/** Whether this task itself counts as alive as a helper (false for a task that is no helper). */
	readonly isAliveHelper: boolean;
	/** Its own tokens plus every descendant's, each counted once (each answer is in one transcript). */
	readonly treeTokens: Tokens & {readonly isPartial: boolean};
	readonly cost: Cost;
	readonly treeCost: Cost;
};

export type FamilyOptions = {
	readonly now: number;
	readonly prices: PriceTable;
	readonly cutoffSeconds?: number;
};

/**
 * Whether a helper counts as alive: it has not ended, it was heard from within the cutoff, and its
 * parent has not ended. A helper runs inside its session's process, so once the session ended none
 * of its helpers works on there (one stopped with it gets no SubagentStop: the reconciler ends it),
 * and a helper's start that comes after its session's end (a stray or a forgery) never makes a
 * finished session active again (docs/tree-and-cost.md).
 */
function isAlive(task: FamilyMember, parent: FamilyMember | undefined, now: number, cutoffSeconds: number): boolean {
	if (isEnded(task.status)) return false;
	if (now - task.lastSeenAt > cutoffSeconds * 1000) return false;
	return !(parent && isEnded(parent.status));
}

/**
 * The tree over a set of tasks as far as it does not change with the clock: who is under whom,
 * and what each task and its tree spent. Only which helpers are alive changes as time passes
 * (`familyAt`), and only tasks that have not ended can be alive, so a board holding 100,000 ended
 * helpers builds this once per change of its tasks, not once a second.
 */
export type FamilyTree = {
	/** Each task's facts with no helper alive (`helpersActive` 0, `isAliveHelper` false). */
	readonly facts: ReadonlyMap<string, FamilyFacts>;
	readonly byId: ReadonlyMap<string, FamilyMember>;
	/** Tasks with a parent that have not ended: the only ones that can be alive helpers. */
	readonly candidates: readonly FamilyMember[];
};

/**
 * The tree over the tasks given: each task's helpers, and its own and its tree's tokens and cost.
 * A parent that is not among the tasks leaves its helpers as roots. A cycle in the ids (a ledger
 * edited by hand) is cut where it closes.
 */
export function familyTree(tasks: Iterable<FamilyMember>, options: Omit<FamilyOptions, 'cutoffSeconds'>): FamilyTree {
	const byId = new Map<string, FamilyMember>();
	for (const task of tasks) byId.set(task.id, task);
	const children = new Map<string, string[]>();
	const candidates: FamilyMember[] = [];
	for (const task of byId.values()) {
		if (task.parentId !== null && !isEnded(task.status)) candidates.push(task);
		if (task.parentId === null || task.parentId === task.id || !byId.has(task.parentId)) continue;
		const list = children.get(task.parentId);
		if (list) list.push(task.id);
		else children.set(task.parentId, [task.id]);
	}
	const facts = new Map<string, FamilyFacts>();
	const nothingReported = costOf({byModel: null, hasUnpricedTokens: false}, options.prices);
	const visiting = new Set<string>();
	type Rolled = {tokens: Tokens; isPartial: boolean; spend: UsageByModel | null; isUnpriced: boolean; total: number};
	const rolled = new Map<string, Rolled>();
	const none: Rolled = {tokens: UNKNOWN_TOKENS, isPartial: false, spend: null, isUnpriced: false, total: 0};
	const roll = (id: string): Rolled => {
		const done = rolled.get(id);
		if (done) return done;
		const task = byId.get(id);
		if (!task || visiting.has(id)) return none;
		visiting.add(id);
		let tokens = task.tokens;
		let isPartial = task.isTokensPartial;
		let spend = task.spend ?? null;
		let isUnpriced = task.hasUnpricedTokens ?? false;
		let total = 0;
		const kids = children.get(id) ?? [];
		for (const kid of kids) {
			const sub = roll(kid);
			if (sub.tokens.input !== null || sub.tokens.output !== null)
				tokens = addTokens(tokens, {input: sub.tokens.input, output: sub.tokens.output});
			isPartial ||= sub.isPartial;
			spend = addUsageByModel(spend, sub.spend);
			isUnpriced ||= sub.isUnpriced;
			total += 1 + sub.total;
		}
		visiting.delete(id);
		// Nothing reported: unknown, one shared value (most of a history).
		const ownComputed =
			(task.spend ?? null) === null
				? nothingReported
				: costOf({byModel: task.spend ?? null, hasUnpricedTokens: task.hasUnpricedTokens ?? false}, options.prices);
		// Claude's own telemetry prices each request exactly (cost_usd, docs/otel.md): it replaces the table's estimate.
		const told = task.telemetry ?? null;
		const own =
			told !== null && told.costUsd !== null
				? reportedCost(told.costUsd, 'USD', told.at ?? options.now, ownComputed)
				: ownComputed;
		// A task with no helpers (most of a history) is its own tree: priced once.
		const treeComputed =
			kids.length === 0
				? own
				: spend === null && !isUnpriced
					? nothingReported
					: costOf({byModel: spend, hasUnpricedTokens: isUnpriced}, options.prices);
		const reported = task.reportedCost ?? null;
		facts.set(id, {
			children: kids,
			helpersActive: 0,
			helpersTotal: total,
			isAliveHelper: false,
			treeTokens: {...tokens, isPartial},
			cost: own,
			treeCost: reported === null ? treeComputed : reportedCost(reported.amount, reported.currency, reported.at, treeComputed),
		});
		const result = {tokens, isPartial, spend, isUnpriced, total};
		rolled.set(id, result);
		return result;
	};
	for (const id of byId.keys()) roll(id);
	return {facts, byId, candidates};
}

/**
 * The tree at `now`: each task's facts with its helpers alive counted. Only the tree's candidates
 * (tasks that have not ended) are looked at: an alive helper counts for its parent and every task
 * above it, as far as the tasks given go.
 */
export function familyAt(tree: FamilyTree, now: number, cutoffSeconds = HELPER_IDLE_CUTOFF_SECONDS): Map<string, FamilyFacts> {
	const active = new Map<string, number>();
	const alive = new Set<string>();
	for (const task of tree.candidates) {
		const parent = task.parentId === null ? undefined : tree.byId.get(task.parentId);
		if (!isAlive(task, parent, now, cutoffSeconds)) continue;
		alive.add(task.id);
		// Counted for its parent when it sits under one (not its own parent), and up the tree from there.
		if (!parent || parent.id === task.id) continue;
		const seen = new Set<string>([task.id]);
		for (let above: FamilyMember | undefined = parent; above && !seen.has(above.id);) {
			seen.add(above.id);
			active.set(above.id, (active.get(above.id) ?? 0) + 1);
			above = above.parentId === null || above.parentId === above.id ? undefined : tree.byId.get(above.parentId);
		}
	}
	if (active.size === 0 && alive.size === 0) return tree.facts as Map<string, FamilyFacts>;
	const facts = new Map(tree.facts);
	for (const id of new Set([...active.keys(), ...alive])) {
		const base = facts.get(id);
		if (base) facts.set(id, {...base, helpersActive: active.get(id) ?? 0, isAliveHelper: alive.has(id)});
	}
	return facts;
}

/**
 * The tree over the tasks given: each task's helpers, how many are alive, and its own and its
 * tree's tokens and cost. A parent that is not among the tasks leaves its helpers as roots. A cycle
 * in the ids (a ledger edited by hand) is cut where it closes.
 */
export function familyOf(tasks: Iterable<FamilyMember>, options: FamilyOptions): Map<string, FamilyFacts> {
	return familyAt(familyTree(tasks, options), options.now, options.cutoffSeconds ?? HELPER_IDLE_CUTOFF_SECONDS);
}

/** `active (1 helper running)`: what a task whose helpers still work reads instead of its own state; null when none do. */
export function helpersRunningLabel(helpersActive: number): string | null {
	if (helpersActive <= 0) return null;
	return `active (${helpersActive} ${helpersActive === 1 ? 'helper' : 'helpers'} running)`;
}

/** The collapsed tree's one line: `3 helpers: 1 active, 2 ended`. */
export function helpersSummary(facts: Pick<FamilyFacts, 'helpersActive' | 'helpersTotal'>): string | null {
	if (facts.helpersTotal === 0) return null;
	const noun = facts.helpersTotal === 1 ? 'helper' : 'helpers';
	const ended = facts.helpersTotal - facts.helpersActive;
	const parts = [facts.helpersActive > 0 ? `${facts.helpersActive} active` : null, ended > 0 ? `${ended} ended` : null];
	return `${facts.helpersTotal} ${noun}: ${parts.filter(part => part !== null).join(', ')}`;
}

/** A task's parent and direct helpers, as `timeline` and `explain` name them. */
export type FamilyNames = {
	readonly parent: {readonly id: string; readonly status: string; readonly title: string | null} | null;
	readonly helpers: readonly {readonly id: string; readonly status: string; readonly title: string | null}[];
};

/** The parent and the direct helpers of a task, from the rows the ledger gave (helpers at any depth may be among them). */
export function familyNames(
	task: Pick<Task, 'id' | 'parentId'>,
	parent: Pick<Task, 'id' | 'status' | 'title'> | null,
	tree: readonly Pick<Task, 'id' | 'parentId' | 'status' | 'title' | 'createdAt'>[],
): FamilyNames {
	const name = (row: Pick<Task, 'id' | 'status' | 'title'>) => ({id: row.id, status: row.status, title: row.title});
	return {
		parent: parent && task.parentId === parent.id ? name(parent) : null,
		helpers: tree
			.filter(row => row.parentId === task.id)
			.toSorted((a, b) => a.createdAt - b.createdAt)
			.map(name),
	};
}

/** `parent: c-1 (running) fix the parser` and `helpers (2): c-1.a (done) Explore, ...`; raw text, to be made terminal-safe. */
export function familyLines(names: FamilyNames): string[] {
	const named = (row: FamilyNames['helpers'][number]) => `${row.id} (${row.status})${row.title === null ? '' : ` ${row.title}`}`;
	return [
		...(names.parent ? [`parent: ${named(names.parent)}`] : []),
		...(names.helpers.length > 0 ? [`helpers (${names.helpers.length}): ${names.helpers.map(named).join(', ')}`] : []),
	];
}
