import {EventType} from '../core/events.ts';
import {readProgressLine, type OutputFinding} from './agent-kind.ts';

const MAX_REPORTED_MODELS = 32;
const MAX_MODEL_CHARS = 200;

/**
 * Claude's own cost of the run from its `-p` result line: `total_cost_usd` covers every call of the
 * session, its sub-agents' included, so it is the tree's figure (docs/tree-and-cost.md). Anything
 * else, or a figure that is no amount, is not read.
 */
export function claudeResultLine(line: string): OutputFinding[] {
	let value: unknown;
	try {
		value = JSON.parse(line);
	} catch {
		return [];
	}
	if (!value || typeof value !== 'object' || Array.isArray(value)) return [];
	const result = value as Record<string, unknown>;
	const amount = result['total_cost_usd'];
	if (result['type'] !== 'result' || typeof amount !== 'number' || !Number.isFinite(amount) || amount < 0) return [];
	const models: Record<string, number> = {};
	const usage = result['modelUsage'];
	if (usage && typeof usage === 'object' && !Array.isArray(usage)) {
		for (const [model, entry] of Object.entries(usage as Record<string, unknown>).slice(0, MAX_REPORTED_MODELS)) {
			const cost = (entry as {costUSD?: unknown} | null)?.costUSD;
			if (typeof cost === 'number' && Number.isFinite(cost) && cost >= 0) models[model.slice(0, MAX_MODEL_CHARS)] = cost;
		}
	}
	return [
		{
			kind: 'event',
			event: {type: EventType.costReported, data: {amount, currency: 'USD', scope: 'tree', from: 'claude -p result', models}},
		},
	];
}

/**
 * What is read from any agent but Codex: `PROGRESS n/total` lines, and a `claude -p` result line
 * with Claude's own cost (a wrapper script's name, such as an offline launcher, says nothing of
 * what it runs, so every non-Codex run is read for it).
 */
export function readAgentLine(line: string): OutputFinding[] {
	const progress = readProgressLine(line);
	if (progress.length > 0) return progress;
	return line.includes('"total_cost_usd"') ? claudeResultLine(line) : [];
}
