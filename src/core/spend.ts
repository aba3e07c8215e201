/**
 * What a task's model calls used, per model: the parts a price table prices separately (docs/tree-and-cost.md).
 * Kept beside the plain token counts so a price can be applied later, by whichever table is in force.
 */
export type ModelUsage = {
	/** Input not read from or written to the cache. */
	readonly input: number;
	/** Cache writes priced at the 5-minute rate (everything written that is not the 1-hour part). */
	readonly cacheWrite5m: number;
	/** The 1-hour part of cache writes (`usage.cache_creation.ephemeral_1h_input_tokens`). */
	readonly cacheWrite1h: number;
	readonly cacheRead: number;
	readonly output: number;
	/** Model answers counted. */
	readonly messages: number;
};

/**
 * Usage per bucket: a model id, with `@long` when the answer's prompt passed LONG_PROMPT_TOKENS and
 * `@us` when it ran with `inference_geo: "us"`; the tier and the uplift are decided per answer, never on
 * a total, so each answer lands in its own bucket.
 */
export type UsageByModel = Readonly<Record<string, ModelUsage>>;

/** A prompt (input + cache reads + cache writes) above this is a long prompt: the only tier Claude's catalog has. */
export const LONG_PROMPT_TOKENS = 100_000;

export const NO_USAGE: ModelUsage = {input: 0, cacheWrite5m: 0, cacheWrite1h: 0, cacheRead: 0, output: 0, messages: 0};

export function addModelUsage(a: ModelUsage, b: ModelUsage): ModelUsage {
	return {
		input: a.input + b.input,
		cacheWrite5m: a.cacheWrite5m + b.cacheWrite5m,
		cacheWrite1h: a.cacheWrite1h + b.cacheWrite1h,
		cacheRead: a.cacheRead + b.cacheRead,
		output: a.output + b.output,
		messages: a.messages + b.messages,
	};
}

/** Adds two per-bucket usages; null with null stays null (nothing known). */
export function addUsageByModel(a: UsageByModel | null, b: UsageByModel | null): UsageByModel | null {
	if (a === null) return b;
	if (b === null) return a;
	const sum: Record<string, ModelUsage> = {...a};
	for (const [bucket, usage] of Object.entries(b)) sum[bucket] = addModelUsage(sum[bucket] ?? NO_USAGE, usage);
	return sum;
}

/** A bucket's model and flags. */
export function parseBucket(bucket: string): {readonly model: string; readonly isLong: boolean; readonly isUs: boolean} {
	const [model = bucket, ...flags] = bucket.split('@');
	return {model, isLong: flags.includes('long'), isUs: flags.includes('us')};
}

export function bucketOf(model: string, isLong: boolean, isUs: boolean): string {
	return `${model}${isLong ? '@long' : ''}${isUs ? '@us' : ''}`;
}

function nonNegative(value: unknown): number {
	return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

/**
 * Reads a stored per-bucket usage back (a ledger event's data is the agent's to have shaped): only
 * well-formed buckets are kept; null when there are none.
 */
export function usageByModelOf(value: unknown): UsageByModel | null {
	if (!value || typeof value !== 'object' || Array.isArray(value)) return null;
	const out: Record<string, ModelUsage> = {};
	for (const [bucket, raw] of Object.entries(value as Record<string, unknown>)) {
		if (!raw || typeof raw !== 'object' || bucket === '' || bucket.length > 200) continue;
		const entry = raw as Record<string, unknown>;
		out[bucket] = {
			input: nonNegative(entry['input']),
			cacheWrite5m: nonNegative(entry['cacheWrite5m']),
			cacheWrite1h: nonNegative(entry['cacheWrite1h']),
			cacheRead: nonNegative(entry['cacheRead']),
			output: nonNegative(entry['output']),
			messages: nonNegative(entry['messages']),
		};
	}
	return Object.keys(out).length > 0 ? out : null;
}
