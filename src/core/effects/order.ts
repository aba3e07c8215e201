import * as z from 'zod';
import {parseDuration} from '../duration.ts';

/** How long held effects wait for approval when an order does not say. */
export const DEFAULT_EXPIRES = '24h';

/** Order ids go into event task ids, placeholders and file names: letters, digits, `.`, `_`, `-`. */
const ORDER_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** Upstream names prefix tool names (`fs__write_file`), so `__`, `/` and `#` are kept out of them. */
const UPSTREAM_NAME = /^[A-Za-z0-9]+(?:[-_][A-Za-z0-9]+)*$/;

const orderId = z.string().regex(ORDER_ID, 'an order id is letters, digits, ".", "_" or "-" (at most 64)');
const toolName = z.string().trim().min(1);
const duration = z.union([z.string(), z.number().positive()]).transform((value, context) => {
	const ms = typeof value === 'number' ? value * 1000 : parseDuration(value);
	if (ms === null || ms <= 0) {
		context.addIssue({code: 'custom', message: `expected a duration like 30m, 1h or 7d, got '${value}'`});
		return z.NEVER;
	}
	return ms;
});

const upstreamSchema = z
	.object({
		command: z.string().trim().min(1),
		args: z.array(z.string()).default([]),
		/** Values `$NAME` or `${NAME}` are read from the environment of the process that starts the upstream. */
		env: z.record(z.string(), z.string()).default({}),
		/** Where the upstream runs; relative to the order file. */
		cwd: z.string().min(1).optional(),
		allow: z.array(toolName).min(1, 'allow at least one tool'),
		/** Tools held for approval; absent: every allowed tool the upstream does not annotate readOnlyHint. */
		staged: z.array(toolName).optional(),
		/** How the gateway names this upstream's tools: `NAME__` unless set ("" offers them under their own names). */
		prefix: z.string().optional(),
	})
	.strict();

const orderSchema = z
	.object({
		order: orderId,
		worker: z.string().trim().min(1),
		/** Set by `order derive`: the order this one was made from; it never carries staged tools. */
		derived_from: orderId.optional(),
		budget: z.object({calls: z.number().int().positive()}).strict(),
		expires: duration.optional(),
		upstreams: z.record(z.string(), upstreamSchema),
	})
	.strict()
	.superRefine((order, context) => {
		const names = Object.keys(order.upstreams);
		if (names.length === 0) context.addIssue({code: 'custom', path: ['upstreams'], message: 'name at least one upstream'});
		for (const [name, upstream] of Object.entries(order.upstreams)) {
			if (!UPSTREAM_NAME.test(name)) {
				context.addIssue({
					code: 'custom',
					path: ['upstreams', name],
					message: 'an upstream name is letters and digits, joined by single - or _',
				});
			}
			for (const tool of upstream.staged ?? []) {
				if (!upstream.allow.includes(tool)) {
					context.addIssue({
						code: 'custom',
						path: ['upstreams', name, 'staged'],
						message: `${tool} is staged but not in allow`,
					});
				}
			}
			if (order.derived_from !== undefined && (upstream.staged?.length ?? 0) > 0) {
				context.addIssue({
					code: 'custom',
					path: ['upstreams', name, 'staged'],
					message: 'a derived order never carries staged tools',
				});
			}
		}
	});

/** One upstream MCP server an order names. */
export type UpstreamSpec = {
	readonly name: string;
	readonly command: string;
	readonly args: readonly string[];
	readonly env: Readonly<Record<string, string>>;
	readonly cwd: string | null;
	readonly allow: readonly string[];
	/** Explicitly staged tools, or null: staged then means "not annotated readOnlyHint: true". */
	readonly staged: readonly string[] | null;
	/** Prefix of the names the gateway offers this upstream's tools under. */
	readonly prefix: string;
};

/** A work order, validated (docs/effects.md). */
export type WorkOrder = {
	readonly id: string;
	readonly worker: string;
	/** The order this one was derived from (a sub-agent's), else null. */
	readonly parent: string | null;
	readonly budgetCalls: number;
	readonly expiresMs: number;
	readonly upstreams: readonly UpstreamSpec[];
};

/** An order, or every problem with it as `path: message` lines. */
export type OrderParse =
	{readonly isValid: true; readonly order: WorkOrder} | {readonly isValid: false; readonly problems: string[]};

/** Validates a parsed YAML document as a work order; never throws. */
export function parseWorkOrder(document: unknown): OrderParse {
	const result = orderSchema.safeParse(document);
	if (!result.success) {
		return {
			isValid: false,
			problems: result.error.issues.map(issue => `${issue.path.length > 0 ? issue.path.join('.') : '(order)'}: ${issue.message}`),
		};
	}
	const raw = result.data;
	return {
		isValid: true,
		order: {
			id: raw.order,
			worker: raw.worker,
			parent: raw.derived_from ?? null,
			budgetCalls: raw.budget.calls,
			expiresMs: raw.expires ?? (parseDuration(DEFAULT_EXPIRES) as number),
			upstreams: Object.entries(raw.upstreams).map(([name, upstream]) => ({
				name,
				command: upstream.command,
				args: upstream.args,
				env: upstream.env,
				cwd: upstream.cwd ?? null,
				allow: upstream.allow,
				staged: upstream.staged ?? null,
				prefix: upstream.prefix ?? `${name}__`,
			})),
		},
	};
}

/** A duration as an order writes it: the largest whole unit (`1h`, `90m`, `45s`). */
function durationText(ms: number): string {
	const seconds = Math.round(ms / 1000);
	for (const [unit, size] of [
		['d', 86_400],
		['h', 3600],
		['m', 60],
	] as const) {
		if (seconds % size === 0) return `${seconds / size}${unit}`;
	}
	return `${seconds}s`;
}

/** The YAML-shaped document of an order: what `order derive` writes. */
export function workOrderDocument(order: WorkOrder): Record<string, unknown> {
	return {
		order: order.id,
		worker: order.worker,
		...(order.parent === null ? {} : {derived_from: order.parent}),
		budget: {calls: order.budgetCalls},
		expires: durationText(order.expiresMs),
		upstreams: Object.fromEntries(
			order.upstreams.map(upstream => [
				upstream.name,
				{
					command: upstream.command,
					args: [...upstream.args],
					env: {...upstream.env},
					...(upstream.cwd === null ? {} : {cwd: upstream.cwd}),
					allow: [...upstream.allow],
					...(upstream.staged === null ? {} : {staged: [...upstream.staged]}),
					...(upstream.prefix === `${upstream.name}__` ? {} : {prefix: upstream.prefix}),
				},
			]),
		),
	};
}

/** What a derived order may change: who it is for, its id, and a smaller budget. */
export type DeriveOptions = {readonly id: string; readonly worker: string; readonly calls?: number};

/**
 * An order for a sub-agent, derived from a worker's (docs/effects.md, "Derived orders"): the same upstreams, minus
 * every explicitly staged tool; tools staged by inference stay listed but the gateway withholds
 * and refuses them in a derived order. The budget can only shrink.
 */
export function deriveOrder(parent: WorkOrder, options: DeriveOptions): WorkOrder | {readonly problem: string} {
	if (!ORDER_ID.test(options.id)) return {problem: `--id: '${options.id}' is not an order id (letters, digits, ".", "_", "-")`};
	if (options.id === parent.id) return {problem: `--id: a derived order needs an id of its own, not ${parent.id}`};
	if (options.calls !== undefined && options.calls > parent.budgetCalls) {
		return {problem: `--calls: ${options.calls} is more than ${parent.id}'s budget of ${parent.budgetCalls}`};
	}
	const upstreams = parent.upstreams
		.map(upstream => ({...upstream, allow: upstream.allow.filter(tool => !(upstream.staged ?? []).includes(tool)), staged: null}))
		.filter(upstream => upstream.allow.length > 0);
	if (upstreams.length === 0) return {problem: `${parent.id} allows only staged tools: a derived order would have none`};
	return {
		id: options.id,
		worker: options.worker,
		parent: parent.id,
		budgetCalls: options.calls ?? parent.budgetCalls,
		expiresMs: parent.expiresMs,
		upstreams,
	};
}
