import {EventType} from '../core/events.ts';
import {CLAUDE_OUTPUT} from '../core/tokens.ts';
import {answerUsage} from '../core/transcript-usage.ts';
import {addModelUsage, bucketOf, LONG_PROMPT_TOKENS, NO_USAGE, type ModelUsage} from '../core/spend.ts';
import {readProgressLine, type OutputFinding} from './agent-kind.ts';

const MAX_REPORTED_MODELS = 32;
const MAX_MODEL_CHARS = 200;
/** Message ids remembered per run, to count each streamed answer once. */
const MAX_SEEN_MESSAGES = 100_000;

function record(value: unknown): Record<string, unknown> | null {
	return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

function parsed(line: string): Record<string, unknown> | null {
	try {
		return record(JSON.parse(line));
	} catch {
		return null;
	}
}

/**
 * Claude's own cost from a `-p` result line: `total_cost_usd` covers every call of the session, its
 * sub-agents' included, so it is the tree's figure (docs/tree-and-cost.md); a resumed session's
 * figure also covers its earlier runs, so for such a run it is the session's (`scope: session`),
 * never the run's. Anything else, or a figure that is no amount, is not read.
 */
export function claudeResultLine(line: string, isResumedSession = false): OutputFinding[] {
	const result = parsed(line);
	if (!result) return [];
	const amount = result['total_cost_usd'];
	if (result['type'] !== 'result' || typeof amount !== 'number' || !Number.isFinite(amount) || amount < 0) return [];
	const models: Record<string, number> = {};
	for (const [model, entry] of Object.entries(record(result['modelUsage']) ?? {}).slice(0, MAX_REPORTED_MODELS)) {
		const cost = record(entry)?.['costUSD'];
		if (typeof cost === 'number' && Number.isFinite(cost) && cost >= 0) models[model.slice(0, MAX_MODEL_CHARS)] = cost;
	}
	const scope = isResumedSession ? 'session' : 'tree';
	return [
		{
			kind: 'event',
			event: {type: EventType.costReported, data: {amount, currency: 'USD', scope, from: 'claude -p result', models}},
		},
	];
}

/** A tokens finding of usage read from Claude's output, on one model's bucket (or none when unnamed). */
function tokensFinding(usage: ModelUsage, model: string | null): OutputFinding {
	const input = usage.input + usage.cacheWrite5m + usage.cacheWrite1h + usage.cacheRead;
	const bucket = model === null ? null : bucketOf(model.slice(0, MAX_MODEL_CHARS), input > LONG_PROMPT_TOKENS, false);
	return {
		kind: 'tokens',
		input,
		output: usage.output,
		data: {
			input,
			output: usage.output,
			uncachedInput: usage.input,
			cacheCreationInput: usage.cacheWrite5m + usage.cacheWrite1h,
			cacheReadInput: usage.cacheRead,
			messages: usage.messages,
			from: CLAUDE_OUTPUT,
			...(bucket === null ? {} : {byModel: {[bucket]: usage}}),
		},
	};
}

/** The part of `total` that `counted` does not hold yet, field by field (never below 0). */
function beyond(total: ModelUsage, counted: ModelUsage): ModelUsage {
	return {
		input: Math.max(0, total.input - counted.input),
		cacheWrite5m: Math.max(0, total.cacheWrite5m - counted.cacheWrite5m),
		cacheWrite1h: Math.max(0, total.cacheWrite1h - counted.cacheWrite1h),
		cacheRead: Math.max(0, total.cacheRead - counted.cacheRead),
		output: Math.max(0, total.output - counted.output),
		messages: Math.max(0, total.messages - counted.messages),
	};
}

/**
 * Reads a `claude -p` run's own output for its tokens, so a run with no hooks installed still has
 * them (docs/wrapper.md, "Tokens without hooks"): with `--output-format stream-json`, each answer's
 * usage as it streams (each message once, by id; a helper's too), and with `json` or `stream-json`
 * the result line's `usage`, which is this process's own answers (never the session's earlier runs):
 * what it holds beyond what streamed is counted then (a stream shows an answer before its last
 * output tokens). Reported `from: claude output`: the projection counts them only while no
 * transcript has counted the same answers. Also reads `PROGRESS n/total` lines and the result's cost.
 */
export function claudeOutputReader(options: {readonly isResumedSession: boolean}): (line: string) => OutputFinding[] {
	const seen = new Set<string>();
	/** The main conversation's answers counted from the stream (the result's `usage` is theirs). */
	let streamedMain: ModelUsage = NO_USAGE;
	let mainModel: string | null = null;
	return line => {
		const progress = readProgressLine(line);
		if (progress.length > 0) return progress;
		if (!line.includes('"usage"') && !line.includes('"total_cost_usd"')) return [];
		const entry = parsed(line);
		if (!entry) return [];
		if (entry['type'] === 'assistant') {
			const message = record(entry['message']);
			const usage = record(message?.['usage']);
			const id = typeof message?.['id'] === 'string' ? message['id'] : null;
			const model = typeof message?.['model'] === 'string' && message['model'] !== '<synthetic>' ? message['model'] : null;
			if (!usage || id === null || model === null || seen.has(id) || seen.size >= MAX_SEEN_MESSAGES) return [];
			seen.add(id);
			const answer = answerUsage(usage);
			if (entry['parent_tool_use_id'] === null || entry['parent_tool_use_id'] === undefined) {
				streamedMain = addModelUsage(streamedMain, answer);
				mainModel = model;
			}
			return [tokensFinding(answer, model)];
		}
		if (entry['type'] !== 'result') return [];
		const findings = claudeResultLine(line, options.isResumedSession);
		const usage = record(entry['usage']);
		if (usage) {
			const rest = beyond({...answerUsage(usage), messages: 0}, {...streamedMain, messages: 0});
			const models = Object.keys(record(entry['modelUsage']) ?? {});
			const model = mainModel ?? (models.length === 1 ? (models[0] ?? null) : null);
			if (rest.input + rest.cacheWrite5m + rest.cacheWrite1h + rest.cacheRead + rest.output > 0) {
				findings.push(tokensFinding({...rest, messages: seen.size === 0 ? numberOf(entry['num_turns']) : 0}, model));
			}
		}
		return findings;
	};
}

function numberOf(value: unknown): number {
	return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}
