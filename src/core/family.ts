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
 * The tree over the tasks given: each task's helpers, how many are alive, and its own and its
 * tree's tokens and cost. A parent that is not among the tasks leaves its helpers as roots. A cycle
 * in the ids (a ledger edited by hand) is cut where it closes.
 */
export function familyOf(tasks: Iterable<FamilyMember>, options: FamilyOptions): Map<string, FamilyFacts> {
	const cutoff = options.cutoffSeconds ?? HELPER_IDLE_CUTOFF_SECONDS;
	const byId = new Map<string, FamilyMember>();
	for (const task of tasks) byId.set(task.id, task);
	const children = new Map<string, string[]>();
	for (const task of byId.values()) {
		if (task.parentId === null || task.parentId === task.id || !byId.has(task.parentId)) continue;
		const list = children.get(task.parentId);
		if (list) list.push(task.id);
		else children.set(task.parentId, [task.id]);
	}
	const facts = new Map<string, FamilyFacts>();
	const nothingReported = costOf({byModel: null, hasUnpricedTokens: false}, options.prices);
	const visiting = new Set<string>();
	type Rolled = {
		tokens: Tokens;
		isPartial: boolean;
		spend: UsageByModel | null;
		isUnpriced: boolean;
		active: number;
		total: number;
	};
	const roll = (id: string): Rolled => {
		const task = byId.get(id);
		if (!task || visiting.has(id))
			return {tokens: UNKNOWN_TOKENS, isPartial: false, spend: null, isUnpriced: false, active: 0, total: 0};
		visiting.add(id);
		let tokens = task.tokens;
		let isPartial = task.isTokensPartial;
		let spend = task.spend ?? null;
		let isUnpriced = task.hasUnpricedTokens ?? false;
		let active = 0;
		let total = 0;
		const kids = children.get(id) ?? [];
		for (const kid of kids) {
			const sub = facts.get(kid) ? fromFacts(kid) : roll(kid);
			const child = byId.get(kid);
			tokens = addTokens(tokens, {input: sub.tokens.input, output: sub.tokens.output});
			isPartial ||= sub.isPartial;
			spend = addUsageByModel(spend, sub.spend);
			isUnpriced ||= sub.isUnpriced;
			total += 1 + sub.total;
			active += sub.active + (child && isAlive(child, task, options.now, cutoff) ? 1 : 0);
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
		const treeComputed = kids.length === 0 ? own : costOf({byModel: spend, hasUnpricedTokens: isUnpriced}, options.prices);
		const reported = task.reportedCost ?? null;
		const parent = task.parentId === null ? undefined : byId.get(task.parentId);
		facts.set(id, {
			children: kids,
			helpersActive: active,
			helpersTotal: total,
			isAliveHelper: task.parentId !== null && isAlive(task, parent, options.now, cutoff),
			treeTokens: {...tokens, isPartial},
			cost: own,
			treeCost: reported === null ? treeComputed : reportedCost(reported.amount, reported.currency, reported.at, treeComputed),
		});
		rolled.set(id, {tokens, isPartial, spend, isUnpriced, active, total});
		return {tokens, isPartial, spend, isUnpriced, active, total};
	};
	const rolled = new Map<string, Rolled>();
	const fromFacts = (id: string): Rolled => rolled.get(id) as Rolled;
	for (const id of byId.keys()) if (!facts.has(id)) roll(id);
	return facts;
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
