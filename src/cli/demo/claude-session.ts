import {randomUUID} from 'node:crypto';
import {appendFileSync, existsSync, mkdirSync, readFileSync} from 'node:fs';
import {dirname, join} from 'node:path';
import {priceRowOf, shippedPriceTable} from '../../core/price-table.ts';
import {runHooks, type HookTable} from './claude-hooks.ts';

// One session of the demo's stand-in for Claude Code: its transcript, written line by line as
// Claude Code 2.1.328 writes it (an assistant line per content block, the message's usage on each;
// a helper's lines in `<session>/subagents/agent-<id>.jsonl`), its hooks, and, when its
// environment asks for them as `run --otel` does, its `api_request` telemetry records. What the
// board then shows of it comes through controlroom's own producers, as for a real session.

/** One model answer's usage, as the Messages API reports it. */
export type Usage = {
	readonly input_tokens: number;
	readonly cache_creation_input_tokens: number;
	readonly cache_read_input_tokens: number;
	readonly output_tokens: number;
};

/** A tool call a turn makes. */
export type ToolCall = {readonly id: string; readonly name: string; readonly input: Record<string, unknown>};

/** The session's folder under the config folder's `projects/`, as Claude names it from the working folder. */
function projectFolder(configDir: string, cwd: string): string {
	return join(configDir, 'projects', cwd.replace(/[^A-Za-z0-9]/g, '-'));
}

/** What a usage costs at the shipped table's prices for `model` (Claude prices its own figure from the same catalog). */
export function usageCost(model: string, usage: Usage): number {
	const row = priceRowOf(shippedPriceTable(), model);
	if (row === null) return 0;
	const perToken = (price: number, tokens: number): number => (price * tokens) / 1_000_000;
	return (
		perToken(row.input, usage.input_tokens) +
		perToken(row.cacheWrite5m, usage.cache_creation_input_tokens) +
		perToken(row.cacheRead, usage.cache_read_input_tokens) +
		perToken(row.output, usage.output_tokens)
	);
}

/** What the answers of a transcript cost, each message once. */
function spentIn(transcript: string): number {
	if (!existsSync(transcript)) return 0;
	const seen = new Set<string>();
	let cost = 0;
	for (const text of readFileSync(transcript, 'utf8').split('\n')) {
		if (text.trim() === '') continue;
		const entry = JSON.parse(text) as {type?: string; message?: {id?: string; model?: string; usage?: Usage}};
		const message = entry.message;
		if (entry.type !== 'assistant' || !message?.id || !message.usage || seen.has(message.id)) continue;
		seen.add(message.id);
		cost += usageCost(message.model ?? '', message.usage);
	}
	return cost;
}

const sleep = (ms: number): Promise<void> => new Promise(resolve => setTimeout(resolve, ms));

/** Where a session runs and what it is. */
type SessionWorld = {
	readonly configDir: string;
	readonly cwd: string;
	readonly isHeadless: boolean;
	readonly model: string;
	/** The session to resume (`--resume`); absent: a new one. */
	readonly sessionId?: string;
};

/** The stand-in's session: its id, transcript, hooks and cost. */
export class ClaudeSession {
	readonly id: string;
	readonly transcript: string;
	/** The session's cost so far, as `total_cost_usd` reports it. */
	cost = 0;
	private readonly base: Record<string, unknown>;
	private readonly hooks: HookTable;
	private readonly world: SessionWorld;

	constructor(hooks: HookTable, world: SessionWorld) {
		this.hooks = hooks;
		this.world = world;
		this.id = world.sessionId ?? randomUUID();
		this.transcript = join(projectFolder(world.configDir, world.cwd), `${this.id}.jsonl`);
		mkdirSync(dirname(this.transcript), {recursive: true});
		// A resumed session's cost goes on from what its transcript already spent (total_cost_usd is the session's).
		this.cost = spentIn(this.transcript);
		this.base = {
			session_id: this.id,
			transcript_path: this.transcript,
			cwd: world.cwd,
			permission_mode: world.isHeadless ? 'bypassPermissions' : 'default',
		};
	}

	/** The hook's environment: the session's process, its folder, headless or not, as Claude sets them. */
	private hookEnv(): Record<string, string> {
		return {
			CLAUDE_PID: String(process.pid),
			CLAUDE_PROJECT_DIR: this.world.cwd,
			CLAUDE_CODE_ENTRYPOINT: this.world.isHeadless ? 'sdk-cli' : 'cli',
			...(this.world.isHeadless ? {CLAUDE_CODE_SESSION_ATTENDED: '0'} : {}),
		};
	}

	/** Fires one hook event; returns what the hooks printed. */
	hook(event: string, fields: Record<string, unknown> = {}): string[] {
		return runHooks(this.hooks, {...this.base, hook_event_name: event, ...fields}, this.hookEnv());
	}

	private line(file: string, fields: Record<string, unknown>): void {
		mkdirSync(dirname(file), {recursive: true});
		const common = {parentUuid: null, isSidechain: false, userType: 'external', cwd: this.world.cwd, sessionId: this.id};
		appendFileSync(
			file,
			`${JSON.stringify({...common, version: '2.1.328', uuid: randomUUID(), timestamp: new Date().toISOString(), ...fields})}\n`,
		);
	}

	/** The person's prompt (or a tool's result) as a user line. */
	user(content: unknown): void {
		this.line(this.transcript, {type: 'user', message: {role: 'user', content}});
	}

	/**
	 * One model answer: a line per content block, each repeating the message's usage; its cost added
	 * to the session's; its telemetry record sent when telemetry is on. `helper` writes it to a helper's file.
	 */
	async answer(
		blocks: readonly Record<string, unknown>[],
		usage: Usage,
		options: {readonly model?: string; readonly helper?: string} = {},
	): Promise<void> {
		const model = options.model ?? this.world.model;
		const messageId = `msg_demo${randomUUID().replaceAll('-', '').slice(0, 18)}`;
		const file = options.helper ? this.helperTranscript(options.helper) : this.transcript;
		for (const block of blocks) {
			this.line(file, {
				...(options.helper ? {isSidechain: true, agentId: options.helper} : {}),
				type: 'assistant',
				requestId: `req_demo${messageId.slice(-12)}`,
				message: {id: messageId, type: 'message', role: 'assistant', model, content: [block], stop_reason: null, usage},
			});
		}
		const cost = usageCost(model, usage);
		this.cost += cost;
		await sendTelemetry(this.id, model, usage, cost, messageId, options.helper ?? null);
	}

	/** A helper's transcript, beside the session's. */
	helperTranscript(agentId: string): string {
		return join(this.transcript.slice(0, -'.jsonl'.length), 'subagents', `agent-${agentId}.jsonl`);
	}

	/** The tool call of the session's last answer that has no result yet: what a resumed session asks about again. */
	pendingCall(): ToolCall | null {
		if (!existsSync(this.transcript)) return null;
		let call: ToolCall | null = null;
		for (const text of readFileSync(this.transcript, 'utf8').split('\n')) {
			if (text.trim() === '') continue;
			const entry = JSON.parse(text) as {type?: string; message?: {content?: unknown}};
			const content = Array.isArray(entry.message?.content) ? (entry.message.content as Record<string, unknown>[]) : [];
			for (const block of content) {
				if (entry.type === 'assistant' && block['type'] === 'tool_use')
					call = {id: String(block['id']), name: String(block['name']), input: block['input'] as Record<string, unknown>};
				if (entry.type === 'user' && block['type'] === 'tool_result' && call?.id === block['tool_use_id']) call = null;
			}
		}
		return call;
	}

	/** Waits, as a model's answer takes time. */
	static think(ms: number): Promise<void> {
		return sleep(ms);
	}
}

/**
 * Claude's `claude_code.api_request` log record, sent as OTLP/JSON to the receiver its environment
 * names (`run --otel URL` sets it), as Claude Code 2.1.328 sends it. Nothing when telemetry is off.
 */
async function sendTelemetry(
	sessionId: string,
	model: string,
	usage: Usage,
	cost: number,
	requestId: string,
	agentId: string | null,
): Promise<void> {
	const endpoint = process.env['OTEL_EXPORTER_OTLP_ENDPOINT'];
	if (process.env['CLAUDE_CODE_ENABLE_TELEMETRY'] !== '1' || !endpoint || !process.env['OTEL_LOGS_EXPORTER']?.includes('otlp'))
		return;
	const value = (item: string | number) =>
		typeof item === 'number' ? (Number.isInteger(item) ? {intValue: String(item)} : {doubleValue: item}) : {stringValue: item};
	const attributes = (pairs: Record<string, string | number>) =>
		Object.entries(pairs).map(([key, item]) => ({key, value: value(item)}));
	const resource = Object.fromEntries(
		(process.env['OTEL_RESOURCE_ATTRIBUTES'] ?? '')
			.split(',')
			.map(pair => pair.split('='))
			.filter((pair): pair is [string, string] => pair.length === 2 && pair[0] !== '')
			.map(([key, item]) => [key.trim(), decodeURIComponent(item.trim())]),
	);
	const record = {
		timeUnixNano: `${Date.now()}000000`,
		body: {stringValue: 'claude_code.api_request'},
		attributes: attributes({
			'session.id': sessionId,
			'event.name': 'api_request',
			model,
			input_tokens: usage.input_tokens,
			output_tokens: usage.output_tokens,
			cache_read_tokens: usage.cache_read_input_tokens,
			cache_creation_tokens: usage.cache_creation_input_tokens,
			cost_usd: Number(cost.toFixed(6)),
			duration_ms: 900,
			request_id: requestId,
			...(agentId === null ? {} : {agent_id: agentId}),
		}),
	};
	const body = {
		resourceLogs: [
			{
				resource: {attributes: attributes({'service.name': 'claude-code', ...resource})},
				scopeLogs: [{scope: {name: 'com.anthropic.claude_code.events'}, logRecords: [record]}],
			},
		],
	};
	try {
		await fetch(`${endpoint.replace(/\/+$/, '')}/v1/logs`, {
			method: 'POST',
			headers: {'content-type': 'application/json'},
			body: JSON.stringify(body),
			signal: AbortSignal.timeout(2000),
		});
	} catch {
		// An exporter that cannot reach its receiver drops the batch; the session goes on.
	}
}
