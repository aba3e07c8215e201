import type {Progress} from './progress.ts';
import type {Tokens} from './tokens.ts';

/** What the screen says for a value no producer reported. */
export const UNKNOWN = 'unknown';

/** A short relative duration: 45s, 12m, 3h, 2d. */
export function formatDuration(ms: number): string {
	const seconds = Math.max(0, Math.floor(ms / 1000));
	if (seconds < 60) return `${seconds}s`;
	const minutes = Math.floor(seconds / 60);
	if (minutes < 60) return `${minutes}m`;
	const hours = Math.floor(minutes / 60);
	if (hours < 48) return `${hours}h`;
	return `${Math.floor(hours / 24)}d`;
}

/** Compact counts: 950, 12.3k, 4.1M. */
export function formatCount(value: number): string {
	if (value < 1000) return String(value);
	if (value < 1_000_000) return `${(value / 1000).toFixed(value < 10_000 ? 1 : 0)}k`;
	return `${(value / 1_000_000).toFixed(value < 10_000_000 ? 1 : 0)}M`;
}

/** Tokens against budget, or `unknown`; a partial total (model calls not counted yet) ends in `+`. */
export function formatTokens(tokens: Tokens, budget: number | null, isPartial = false): string {
	if (tokens.total === null) return budget === null ? UNKNOWN : `${UNKNOWN}/${formatCount(budget)}`;
	const total = `${formatCount(tokens.total)}${isPartial ? '+' : ''}`;
	return budget === null ? total : `${total}/${formatCount(budget)}`;
}

/** `n/total` with a bar, or the words that say nothing was declared. */
export function formatProgress(progress: Progress | null, barWidth = 10): string {
	if (progress === null) return 'progress not reported';
	const filled = Math.round((progress.done / progress.total) * barWidth);
	return `${'█'.repeat(filled)}${'░'.repeat(barWidth - filled)} ${progress.done}/${progress.total}`;
}

/** A nullable number, or `unknown`. */
export function formatKnown(value: number | string | null): string {
	return value === null ? UNKNOWN : String(value);
}
