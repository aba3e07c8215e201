import {Server} from '@modelcontextprotocol/sdk/server/index.js';
import {CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool} from '@modelcontextprotocol/sdk/types.js';
import {planTools, placeholderOf, type EffectPlan, type PlannedTool, type UpstreamTool} from '../../core/effects/plan.ts';
import {EventType} from '../../core/events.ts';
import {MAX_MCP_REQUEST_BYTES} from '../../core/mcp-limits.ts';
import {isStillInItsFile, watchLedgerFile} from '../../ledger/file-watch.ts';
import type {Ledger} from '../../ledger/open-ledger.ts';
import type {LoadedOrder} from './order-file.ts';
import {toolCallerOf} from './caller.ts';
import {admitCall, currentOrder, orderEvent, recordedResult, refuseCall} from './record.ts';
import {connectUpstream, listAllTools, type Upstream} from './upstreams.ts';

/** A running gateway: the MCP server to connect to a transport, and how to stop its upstreams. */
export type Gateway = {
	readonly server: Server;
	readonly plan: EffectPlan;
	/** Records a request too large to read (src/cli/bounded-stdio.ts) as a refused call of the order. */
	refuseOversized(request: {readonly bytes: number; readonly tool: string | null; readonly head: string}): void;
	close(): Promise<void>;
};

/** The gateway cannot serve this order (an upstream failed, names clash, a derived order has no parent). */
export class GatewayError extends Error {}

export type GatewayOptions = {
	/** The worker's task, when the gateway runs under one (CONTROLROOM_TASK_ID). */
	readonly workerTask: string | null;
	readonly version: string;
	/** The gateway's own one-line notices (stderr: stdout carries only the protocol). */
	readonly notice?: (line: string) => void;
};

function refusal(text: string): CallToolResult {
	return {isError: true, content: [{type: 'text', text}]};
}

/** Tools the parent of a derived order staged, as `upstream/tool`, from what the ledger recorded of it. */
function parentStaged(ledger: Ledger, loaded: LoadedOrder): Set<string> {
	const parent = loaded.order.parent;
	if (parent === null) return new Set();
	const events = ledger.reader.eventsOf(parent);
	const staged = new Set<string>();
	let isKnown = false;
	for (const event of events) {
		if (event.type === EventType.orderDerived && event.data.child === loaded.order.id) {
			isKnown = true;
			for (const tool of event.data.staged ?? []) staged.add(tool);
		}
		if (event.type === EventType.orderOpened) {
			isKnown = true;
			const upstreams = (event.data.upstreams ?? {}) as Record<string, {staged?: unknown}>;
			for (const [name, summary] of Object.entries(upstreams)) {
				if (Array.isArray(summary.staged)) for (const tool of summary.staged) staged.add(`${name}/${String(tool)}`);
			}
		}
	}
	if (!isKnown) {
		throw new GatewayError(
			`order ${loaded.order.id} says it is derived from ${parent}, which the ledger does not know: derive it with \`controlroom order derive\``,
		);
	}
	return staged;
}

/**
 * An order id names one order: a gateway for an id the ledger already knows with another digest is
 * refused before it starts anything, so its file can never lift the first one's holds or lend its
 * upstreams to the first one's held calls.
 */
function refuseAnotherOrder(ledger: Ledger, loaded: LoadedOrder): void {
	const known = currentOrder(ledger, loaded.order.id);
	if (!known || known.openedAt === null || known.digest === null || known.digest === loaded.digest) return;
	throw new GatewayError(
		`order ${loaded.order.id} is already in the ledger as another order (${known.file ?? 'its file'}, sha256 ${known.digest.slice(0, 12)}; this is ${loaded.file}, sha256 ${loaded.digest.slice(0, 12)}): give this order an id of its own`,
	);
}

function offeredTool(planned: PlannedTool): Tool {
	const {definition} = planned;
	const held = planned.isStaged
		? ' [controlroom: held for approval. The call does not run now: you get a placeholder such as pending:UPSTREAM/TOOL#N; list it under `effects` in your report.]'
		: '';
	return {
		name: planned.offeredName,
		description: `${definition.description ?? ''}${held}`.trim(),
		inputSchema: definition.inputSchema as Tool['inputSchema'],
		// A held call answers with a placeholder, not the upstream's structured result.
		...(planned.isStaged || definition.outputSchema === undefined
			? {}
			: {outputSchema: definition.outputSchema as Tool['outputSchema']}),
		...(definition.annotations ? {annotations: definition.annotations} : {}),
	};
}

function summaryOf(loaded: LoadedOrder, plan: EffectPlan): Record<string, unknown> {
	const all = [...plan.tools.values(), ...plan.withheld.values()];
	return Object.fromEntries(
		loaded.order.upstreams.map(upstream => {
			const mine = all.filter(tool => tool.upstream === upstream.name);
			return [
				upstream.name,
				{
					command: upstream.command,
					args: upstream.args,
					offered: mine.filter(tool => plan.tools.has(tool.offeredName)).map(tool => tool.offeredName),
					staged: mine.filter(tool => tool.isStaged).map(tool => tool.tool),
					withheld: mine.filter(tool => plan.withheld.has(tool.offeredName)).map(tool => tool.tool),
					missing: plan.missing.filter(name => name.startsWith(`${upstream.name}/`)),
				},
			];
		}),
	);
}

/**
 * Starts the effect gateway for an order: connects every upstream, plans the tools, records the
 * order as opened, and returns an MCP server that lists only the allowed tools, passes reads
 * through (recorded), holds staged calls (recorded, answered with a placeholder) and refuses
 * anything else, including calls past the budget.
 */
export async function startGateway(ledger: Ledger, loaded: LoadedOrder, options: GatewayOptions): Promise<Gateway> {
	const {order} = loaded;
	refuseAnotherOrder(ledger, loaded);
	const inherited = parentStaged(ledger, loaded);
	const upstreams = new Map<string, Upstream>();
	const closeAll = async () => {
		await Promise.all([...upstreams.values()].map(upstream => upstream.close().catch(() => undefined)));
	};
	let plan: EffectPlan;
	try {
		const listed = new Map<string, UpstreamTool[]>();
		for (const spec of order.upstreams) {
			const upstream = await connectUpstream(spec, loaded.dir, `controlroom-gateway/${order.id}`);
			upstreams.set(spec.name, upstream);
			listed.set(spec.name, await listAllTools(upstream));
		}
		plan = planTools(order, listed, inherited);
	} catch (error) {
		await closeAll();
		throw error;
	}
	const opened = {
		worker: order.worker,
		parent: order.parent,
		budgetCalls: order.budgetCalls,
		expiresMs: order.expiresMs,
		file: loaded.file,
		digest: loaded.digest,
		text: loaded.source,
		upstreams: summaryOf(loaded, plan),
		workerTask: options.workerTask,
		gatewayPid: process.pid,
	};
	ledger.writer.append([orderEvent(EventType.orderOpened, opened, order.id, 'gateway')]);
	// A moved ledger keeps the order's events together in the file it opened; a deleted or replaced
	// one gets the order opened again, so a held call's placeholder names an order the ledger shows.
	const notice = options.notice ?? (() => undefined);
	const fileWatch = watchLedgerFile(
		ledger,
		change => {
			if (isStillInItsFile(change)) {
				notice(
					`the ledger ${change.path} was moved to ${change.nowIn}: order ${order.id}'s events, earlier and later, are in ${change.nowIn}`,
				);
				return;
			}
			ledger.writer.append([orderEvent(EventType.orderOpened, opened, order.id, 'gateway')]);
			notice(
				`the ledger ${change.path} was ${change.kind}: order ${order.id} is opened again in the new file there (its earlier calls are not in it, nor counted against its budget)`,
			);
		},
		error => notice(`cannot reopen the ledger ${ledger.path} (${error.message}); the gateway goes on`),
	);

	const server = new Server({name: 'controlroom-gateway', version: options.version}, {capabilities: {tools: {}}});
	server.setRequestHandler(ListToolsRequestSchema, () => ({tools: [...plan.tools.values()].map(offeredTool)}));
	server.setRequestHandler(CallToolRequestSchema, async request => {
		// Every call is recorded where the board and the approvals look.
		fileWatch.check();
		const name = request.params.name;
		const args = request.params.arguments ?? {};
		const planned = plan.tools.get(name);
		if (!planned) {
			const withheld = plan.withheld.get(name);
			const reason = withheld
				? `${withheld.upstream}/${withheld.tool} is staged in ${order.parent ?? 'the parent order'}: a derived order never carries staged tools`
				: `tool ${name} is not in order ${order.id}`;
			const told = refuseCall(
				ledger,
				order.id,
				{upstream: withheld?.upstream ?? null, tool: withheld?.tool ?? name, args},
				reason,
			);
			return refusal(`refused: ${told}`);
		}
		// A staged call made inside a sub-agent is refused: only the worker holding the order asks
		// for writes (docs/effects.md, "Sub-agents"); its hook named the sub-agent.
		const caller = planned.isStaged ? toolCallerOf(ledger, request.params._meta) : null;
		if (caller?.subAgent) {
			const who = `${caller.subAgent.type ?? 'sub-agent'} ${caller.subAgent.id}`;
			const reason = `${planned.upstream}/${planned.tool} is staged in ${order.id}: a sub-agent (${who}) cannot ask for writes; only the worker holding the order can (or a person derives an order for the sub-agent: controlroom order derive)`;
			ledger.writer.append([
				orderEvent(
					EventType.effectRefused,
					{
						upstream: planned.upstream,
						tool: planned.tool,
						reason,
						args,
						agentId: caller.subAgent.id,
						agentType: caller.subAgent.type,
						toolUseId: caller.toolUseId,
						session: caller.session,
					},
					order.id,
					'gateway',
				),
			]);
			return refusal(`refused: ${reason}`);
		}
		const admission = admitCall(ledger, order.id, order.budgetCalls, {
			upstream: planned.upstream,
			tool: planned.tool,
			args,
			isStaged: planned.isStaged,
			expiresMs: order.expiresMs,
			caller,
		});
		if ('refused' in admission) return refusal(`refused: ${admission.refused}`);
		if (planned.isStaged) {
			const placeholder = placeholderOf(admission.id);
			return {
				content: [
					{type: 'text', text: placeholder},
					{
						type: 'text',
						text: `Held for approval by a person; nothing has run yet. List ${placeholder} under \`effects\` in your report. A later call can use its result with {"$ref": "${admission.id}", "pointer": "/structuredContent/..."}.`,
					},
				],
			};
		}
		const upstream = upstreams.get(planned.upstream);
		try {
			const result = (await upstream?.client.callTool({
				name: planned.tool,
				arguments: args as Record<string, unknown>,
			})) as CallToolResult;
			ledger.writer.append([
				orderEvent(
					EventType.effectFinished,
					{id: admission.id, isError: result.isError === true, result: recordedResult(result)},
					order.id,
					'gateway',
				),
			]);
			return result;
		} catch (error) {
			const message = (error as Error).message;
			ledger.writer.append([
				orderEvent(EventType.effectFinished, {id: admission.id, isError: true, error: message}, order.id, 'gateway'),
			]);
			return refusal(`${planned.upstream}/${planned.tool} failed: ${message}`);
		}
	});
	return {
		server,
		plan,
		refuseOversized: request => {
			fileWatch.check();
			refuseCall(
				ledger,
				order.id,
				{upstream: null, tool: request.tool ?? '(unread)', args: {bytes: request.bytes, start: request.head.slice(0, 512)}},
				`a request of ${request.bytes} bytes is over the limit of ${MAX_MCP_REQUEST_BYTES} bytes, not read`,
			);
		},
		close: async () => {
			fileWatch.stop();
			await closeAll();
		},
	};
}
