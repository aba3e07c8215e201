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
};

export type UsageScan = {
	readonly usage: TranscriptUsage;
	/** The id of the last message counted (or carried over), so the next chunk can skip its repeats. */
	readonly lastMessageId: string | null;
	/** Lines that were not JSON; they are skipped, never guessed at. */
	readonly badLines: number;
};

export type ScanOptions = {
	/** The message counted last in the previous chunk of the same file. */
	readonly lastMessageId: string | null;
	/**
	 * Skip `isSidechain` lines. True for a session's own transcript: its subagents are counted from
	 * their own transcript files, on the helper task.
	 */
	readonly skipSidechain: boolean;
};

function count(value: unknown): number {
	return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

function record(value: unknown): Record<string, unknown> | null {
	return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

/**
 * Sums `message.usage` over assistant lines. Claude Code writes one line per content block and
 * repeats the message's usage on each, so a message is counted once, at its first line; lines
 * whose model is `<synthetic>` are not model calls and are skipped.
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
	for (const line of text.split('\n')) {
		// Cheap filter first: most lines (tool results, user turns) carry no usage.
		if (!line.includes('"usage"')) continue;
		let value: unknown;
		try {
			value = JSON.parse(line);
		} catch {
			badLines += 1;
			continue;
		}
		const entry = record(value);
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
		uncachedInput += count(usage['input_tokens']);
		cacheCreationInput += count(usage['cache_creation_input_tokens']);
		cacheReadInput += count(usage['cache_read_input_tokens']);
		output += count(usage['output_tokens']);
		messages += 1;
	}
	return {
		usage: {
			input: uncachedInput + cacheCreationInput + cacheReadInput,
			output,
			uncachedInput,
			cacheCreationInput,
			cacheReadInput,
			messages,
		},
		lastMessageId,
		badLines,
	};
}
