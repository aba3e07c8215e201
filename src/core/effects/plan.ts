import type {UpstreamSpec, WorkOrder} from './order.ts';

/** What an upstream says about one of its tools (the parts the plan reads). */
export type UpstreamTool = {
	readonly name: string;
	readonly description?: string | undefined;
	readonly inputSchema: Readonly<Record<string, unknown>>;
	readonly outputSchema?: Readonly<Record<string, unknown>> | undefined;
	readonly annotations?: {readonly readOnlyHint?: boolean | undefined} | undefined;
};

/** How the gateway treats one allowed tool. */
export type PlannedTool = {
	/** The name the worker sees. */
	readonly offeredName: string;
	readonly upstream: string;
	readonly tool: string;
	/** Held for approval instead of forwarded. */
	readonly isStaged: boolean;
	readonly definition: UpstreamTool;
};

/** The gateway's plan for an order: the tools it offers and what it does with each. */
export type EffectPlan = {
	/** Tools offered to the worker, by offered name. */
	readonly tools: ReadonlyMap<string, PlannedTool>;
	/** Staged tools a derived order refuses (not offered), by offered name. */
	readonly withheld: ReadonlyMap<string, PlannedTool>;
	/** Allowed tools an upstream does not have: `fs/write_fil`. */
	readonly missing: readonly string[];
};

/** Whether a call to `tool` is held: the order's `staged` list, else anything not annotated read-only. */
export function isStagedTool(upstream: UpstreamSpec, tool: UpstreamTool): boolean {
	if (upstream.staged !== null) return upstream.staged.includes(tool.name);
	return tool.annotations?.readOnlyHint !== true;
}

/** Thrown when two upstreams would offer a tool under the same name. */
export class ToolNameClashError extends Error {}

/**
 * Plans the tools of an order from what each upstream lists: only allowed tools, named with their
 * upstream's prefix; in a derived order, staged tools are withheld (a sub-agent never gets one),
 * and so is any tool the parent order staged (`parentStaged`: `upstream/tool`), whatever the
 * upstream annotates.
 */
export function planTools(
	order: WorkOrder,
	listed: ReadonlyMap<string, readonly UpstreamTool[]>,
	parentStaged: ReadonlySet<string> = new Set(),
): EffectPlan {
	const tools = new Map<string, PlannedTool>();
	const withheld = new Map<string, PlannedTool>();
	const missing: string[] = [];
	for (const upstream of order.upstreams) {
		const available = new Map((listed.get(upstream.name) ?? []).map(tool => [tool.name, tool]));
		for (const name of upstream.allow) {
			const definition = available.get(name);
			if (!definition) {
				missing.push(`${upstream.name}/${name}`);
				continue;
			}
			const offeredName = `${upstream.prefix}${name}`;
			const other = tools.get(offeredName) ?? withheld.get(offeredName);
			if (other) {
				throw new ToolNameClashError(
					`${upstream.name}/${name} and ${other.upstream}/${other.tool} would both be offered as ${offeredName}: give one upstream a prefix`,
				);
			}
			const isStaged = isStagedTool(upstream, definition) || parentStaged.has(`${upstream.name}/${name}`);
			const planned = {offeredName, upstream: upstream.name, tool: name, isStaged, definition};
			(isStaged && order.parent !== null ? withheld : tools).set(offeredName, planned);
		}
	}
	return {tools, withheld, missing};
}

/** An effect's id within its order: `fs/write_file#3` (upstream/tool#sequence). */
export function effectId(upstream: string, tool: string, seq: number): string {
	return `${upstream}/${tool}#${seq}`;
}

/** What the worker gets for a held call, to list under `effects` in its report. */
export function placeholderOf(id: string): string {
	return `pending:${id}`;
}

/** The parts of an effect id or placeholder, or null when the text is neither. */
export function parseEffectId(text: string): {upstream: string; tool: string; seq: number; id: string} | null {
	const match = text.trim().match(/^(?:pending:)?([^/\s#]+)\/([^\s#]+)#(\d+)$/);
	if (!match) return null;
	const [, upstream = '', tool = '', seq = '0'] = match;
	return {upstream, tool, seq: Number(seq), id: effectId(upstream, tool, Number(seq))};
}
