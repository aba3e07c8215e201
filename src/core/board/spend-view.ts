import {costOf, formatCost} from '../cost.ts';
import {familyOf} from '../family.ts';
import {formatCount, formatTokens} from '../format.ts';
import type {PriceTable} from '../price-table.ts';
import {addModelUsage, NO_USAGE, parseBucket, type ModelUsage, type UsageByModel} from '../spend.ts';
import type {Task} from '../task.ts';
import {terminalSafe} from '../terminal-text.ts';
import {layoutTable, type TableColumn, type TableView} from './table-layout.ts';

/** The drill-down's two spend tables (docs/tree-and-cost.md, "On screen"); null where there is nothing to list. */
export type SpendTables = {
	readonly byModel: TableView | null;
	readonly byHelper: TableView | null;
};

const BY_MODEL: readonly TableColumn[] = [
	{heading: 'MODEL', cap: 28, grows: true},
	{heading: 'ANSWERS', align: 'right'},
	{heading: 'INPUT', align: 'right'},
	{heading: 'CACHE WRITE', align: 'right'},
	{heading: 'CACHE READ', align: 'right'},
	{heading: 'OUTPUT', align: 'right'},
	{heading: 'COST', align: 'right'},
];

const BY_HELPER: readonly TableColumn[] = [
	{heading: 'ID', cap: 30},
	{heading: 'TITLE', grows: true},
	{heading: 'STATUS', cap: 24},
	{heading: 'TOKENS', align: 'right'},
	{heading: 'COST', align: 'right'},
];

/** The task and every helper under it, depth first, each task's helpers in the order they started. */
function treeOf(root: Task, tasks: ReadonlyMap<string, Task>): {task: Task; depth: number}[] {
	const children = new Map<string, Task[]>();
	for (const task of tasks.values()) {
		if (task.parentId === null || task.parentId === task.id) continue;
		const list = children.get(task.parentId);
		if (list) list.push(task);
		else children.set(task.parentId, [task]);
	}
	const out: {task: Task; depth: number}[] = [];
	const seen = new Set<string>();
	const walk = (task: Task, depth: number): void => {
		if (seen.has(task.id)) return;
		seen.add(task.id);
		out.push({task, depth});
		const kids = [...(children.get(task.id) ?? [])].sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
		for (const kid of kids) walk(kid, depth + 1);
	};
	walk(root, 0);
	return out;
}

/** The tree's usage per model (each model's buckets kept apart, for their prices). */
function byModelOf(members: readonly Task[]): Map<string, Record<string, ModelUsage>> {
	const models = new Map<string, Record<string, ModelUsage>>();
	for (const task of members)
		for (const [bucket, usage] of Object.entries(task.spend ?? {})) {
			const {model} = parseBucket(bucket);
			const buckets = models.get(model) ?? {};
			buckets[bucket] = addModelUsage(buckets[bucket] ?? NO_USAGE, usage);
			models.set(model, buckets);
		}
	return models;
}

/**
 * What the task's tree spent, by model (answers, the priced kinds of tokens, the cost at the table
 * in force; `unknown` for a model the table lacks) and, when it has helpers, by helper (each one's
 * own tokens and cost, the task's own first). Cells are terminal-safe, laid out in cells.
 */
export function spendTables(
	taskId: string,
	tasks: ReadonlyMap<string, Task>,
	statusOf: (task: Task) => string,
	prices: PriceTable,
	now: number,
	width: number,
	maxRows: number,
): SpendTables {
	const root = tasks.get(taskId);
	if (!root) return {byModel: null, byHelper: null};
	const tree = treeOf(root, tasks);
	const members = tree.map(entry => entry.task);
	const models = byModelOf(members);
	const modelRows = [...models.entries()]
		.sort(([a], [b]) => a.localeCompare(b))
		.map(([model, buckets]) => {
			const sum = Object.values(buckets).reduce(addModelUsage, NO_USAGE);
			const cost = costOf({byModel: buckets as UsageByModel, hasUnpricedTokens: false}, prices);
			return [
				terminalSafe(model),
				String(sum.messages),
				formatCount(sum.input),
				formatCount(sum.cacheWrite5m + sum.cacheWrite1h),
				formatCount(sum.cacheRead),
				formatCount(sum.output),
				formatCost(cost),
			];
		});
	// Tokens no answer named a model for (Codex, a settlement of Claude's own count): why the tree's cost is unknown.
	if (members.some(task => task.hasUnpricedTokens === true)) modelRows.push(['no model named', '', '', '', '', '', 'unknown']);
	const byModel = modelRows.length > 0 ? layoutTable(BY_MODEL, modelRows, width, maxRows) : null;
	if (tree.length < 2) return {byModel, byHelper: null};
	const family = familyOf(members, {now, prices});
	const helperRows = tree.map(({task, depth}) => [
		`${depth === 0 ? '' : `${'  '.repeat(depth - 1)}└ `}${terminalSafe(task.id)}`,
		terminalSafe(task.title ?? ''),
		statusOf(task),
		formatTokens(task.tokens, null, task.isTokensPartial),
		formatCost(family.get(task.id)?.cost ?? costOf({byModel: null, hasUnpricedTokens: false}, prices)),
	]);
	return {byModel, byHelper: layoutTable(BY_HELPER, helperRows, width, maxRows)};
}
