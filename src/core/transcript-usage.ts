import {addModelUsage, bucketOf, LONG_PROMPT_TOKENS, NO_USAGE, type ModelUsage, type UsageByModel} from './spend.ts';

/** Token usage summed from a run of Claude Code transcript lines. */
export type TranscriptUsage = {
	/** Everything the model read: uncached input + cache writes + cache reads (see docs/hooks.md). */
	readonly input: number;
	readonly output: number;
	readonly uncachedInput: number;
	readonly cacheCreationInput: number;
	readonly cacheReadInput: number;
	/** Distinct assistant messages counted. */
	readonly messages: number;
	/** The same answers per model (and per price tier), for pricing (src/core/spend.ts). */
	readonly byModel: UsageByModel;
};

/**
 * Claude's own count of a session, every model call of it (its `cost-state` line): tokens, and
 * its cost (`totalCostUSD`) when the line has one. A resumed session's line carries on from the
 * one before: it is the session's count, not one process's.
 */
export type CostState = {readonly input: number; readonly output: number; readonly costUsd: number | null};

export type UsageScan = {
	readonly usage: TranscriptUsage;
	/** `/compact` runs seen (`compact_boundary` lines): their model calls write no assistant line. */
	readonly compactions: number;
	/** The last `cost-state` line's totals, when the text holds one. */
	readonly costState: CostState | null;
	/** `/compact` runs after that last `cost-state` line (all of them when there is none). */
	readonly compactionsAfterCostState: number;
	/** The latest `timestamp` of a line counted (an answer, a `/compact`), ms since the epoch; null when none carried one. */
	readonly lastAt: number | null;
	/** The id of the last message counted (or carried over), so the next chunk can skip its repeats. */
	readonly lastMessageId: string | null;
	/** Lines that were not JSON; they are skipped, never guessed at. */
	readonly badLines: number;
	/**
	 * With `notBefore`: the last `cost-state` line before the run's first line, Claude's count of the
	 * session before this run (null when none was read).
	 */
	readonly costStateBefore: CostState | null;
	/** With `notBefore`: whether this text reached the run's own lines (a line dated at or after it). */
	readonly reachedRun: boolean;
	/** With `notBefore`: lines of the session's earlier runs passed over, uncounted. */
	readonly linesBefore: number;
};

export type ScanOptions = {
	/** The message counted last in the previous chunk of the same file. */
	readonly lastMessageId: string | null;
	/**
	 * Skip `isSidechain` lines. True for a session's own transcript: its subagents are counted from
	 * their own transcript files, on the helper task.
	 */
	readonly skipSidechain: boolean;
	/**
	 * A run that resumed a session (ms since the epoch, its start): lines dated before it are the
	 * session's earlier runs and are not counted, and `cost-state` lines before its first line give
	 * `costStateBefore`. Null: every line counts (a session's own task, or text already in the run).
	 */
	readonly notBefore?: number | null;
};

function count(value: unknown): number {
	return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

function record(value: unknown): Record<string, unknown> | null {
	return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

/**
 * Claude's own count from a `cost-state` line: per model, everything read (input, cache reads and
 * writes) and written. Null when the line holds no usable count.
 */
function costStateOf(entry: Record<string, unknown>): CostState | null {
	const models = record(entry['modelUsage']);
	if (!models) return null;
	let input = 0;
	let output = 0;
	const total = entry['totalCostUSD'];
	const costUsd = typeof total === 'number' && Number.isFinite(total) && total >= 0 ? total : null;
	for (const value of Object.values(models)) {
		const model = record(value);
		if (!model) continue;
		input += count(model['inputTokens']) + count(model['cacheReadInputTokens']) + count(model['cacheCreationInputTokens']);
		output += count(model['outputTokens']);
	}
	return {input, output, costUsd};
}

/** A line's `timestamp` (ms), read without parsing the line, or null. */
function timestampOf(line: string): number | null {
	const at = /"timestamp":"([^"]{10,40})"/.exec(line);
	if (!at) return null;
	const ms = Date.parse(at[1] ?? '');
	return Number.isFinite(ms) ? ms : null;
}

/** One answer's usage, its cache write split into the 1-hour part and the rest (priced at the 5-minute rate). */
export function answerUsage(usage: Record<string, unknown>): ModelUsage {
	const written = count(usage['cache_creation_input_tokens']);
	const oneHour = Math.min(written, count(record(usage['cache_creation'])?.['ephemeral_1h_input_tokens']));
	return {
		input: count(usage['input_tokens']),
		cacheWrite5m: written - oneHour,
		cacheWrite1h: oneHour,
		cacheRead: count(usage['cache_read_input_tokens']),
		output: count(usage['output_tokens']),
		messages: 1,
	};
}

/**
 * Sums `message.usage` over assistant lines. Claude Code writes one line per content block and
 * repeats the message's usage on each, so a message is counted once, at its first line; lines
 * whose model is `<synthetic>` are not model calls and are skipped. `/compact` makes model calls
 * no assistant line shows: its `compact_boundary` lines are counted, and Claude's own `cost-state`
 * line (written when a session's process ends) gives the session's true total (docs/hooks.md).
 */
export function scanTranscriptText(text: string, options: ScanOptions): UsageScan {
	const seen = new Set<string>();
	let lastMessageId = options.lastMessageId;
	if (lastMessageId) seen.add(lastMessageId);
	let uncachedInput = 0;
	let cacheCreationInput = 0;
	let cacheReadInput = 0;
	let output = 0;
	let messages = 0;
	let badLines = 0;
	let compactions = 0;
	let compactionsAfterCostState = 0;
	let costState: CostState | null = null;
	let costStateBefore: CostState | null = null;
	const notBefore = options.notBefore ?? null;
	// Until a line of the run is met, what is read belongs to the session's earlier runs.
	let isInRun = notBefore === null;
	let linesBefore = 0;
	let lastAt: number | null = null;
	const byModel: Record<string, ModelUsage> = {};
	const noteTime = (entry: Record<string, unknown>): void => {
		const at = typeof entry['timestamp'] === 'string' ? Date.parse(entry['timestamp']) : Number.NaN;
		if (Number.isFinite(at) && (lastAt === null || at > lastAt)) lastAt = at;
	};
	for (const line of text.split('\n')) {
		if (!isInRun) {
			const at = timestampOf(line);
			if (at !== null && notBefore !== null && at >= notBefore) isInRun = true;
			else if (line !== '') linesBefore += 1;
		}
		// Cheap filter first: most lines (tool results, user turns) carry no usage.
		const isCompaction = line.includes('"compact_boundary"');
		const isCostState = line.includes('"cost-state"');
		if (!line.includes('"usage"') && !isCompaction && !isCostState) continue;
		let value: unknown;
		try {
			value = JSON.parse(line);
		} catch {
			badLines += 1;
			continue;
		}
		const entry = record(value);
		if (!isInRun) {
			// An earlier run's line: its `cost-state` is the session's count before this run; nothing else counts.
			if (entry?.['type'] === 'cost-state') costStateBefore = costStateOf(entry) ?? costStateBefore;
			continue;
		}
		if (entry?.['type'] === 'system' && entry['subtype'] === 'compact_boundary') {
			noteTime(entry);
			compactions += 1;
			compactionsAfterCostState += 1;
			continue;
		}
		if (entry?.['type'] === 'cost-state') {
			costState = costStateOf(entry) ?? costState;
			compactionsAfterCostState = 0;
			continue;
		}
		if (!entry || entry['type'] !== 'assistant') continue;
		if (options.skipSidechain && entry['isSidechain'] === true) continue;
		const message = record(entry['message']);
		const usage = record(message?.['usage']);
		if (!message || !usage || message['model'] === '<synthetic>') continue;
		const id = typeof message['id'] === 'string' ? message['id'] : null;
		if (id !== null) {
			if (seen.has(id)) continue;
			seen.add(id);
			lastMessageId = id;
		}
		const answer = answerUsage(usage);
		uncachedInput += answer.input;
		cacheCreationInput += answer.cacheWrite5m + answer.cacheWrite1h;
		cacheReadInput += answer.cacheRead;
		output += answer.output;
		messages += 1;
		const bucket = bucketOf(
			typeof message['model'] === 'string' && message['model'] !== '' ? message['model'] : 'unknown',
			answer.input + answer.cacheWrite5m + answer.cacheWrite1h + answer.cacheRead > LONG_PROMPT_TOKENS,
			usage['inference_geo'] === 'us',
		);
		byModel[bucket] = addModelUsage(byModel[bucket] ?? NO_USAGE, answer);
		noteTime(entry);
	}
	return {
		usage: {
			input: uncachedInput + cacheCreationInput + cacheReadInput,
			output,
			uncachedInput,
			cacheCreationInput,
			cacheReadInput,
			messages,
			byModel,
		},
		lastMessageId,
		badLines,
		compactions,
		costState,
		compactionsAfterCostState,
		lastAt,
		costStateBefore,
		reachedRun: isInRun,
		linesBefore,
	};
}
