/** How long to wait before retrying something that failed: the first pause, doubling up to the last. */
export type Backoff = {readonly firstMs: number; readonly lastMs: number};

/** The one backoff of every retry loop (the fleet sync, the fleet board's reconnect, the OpenTelemetry export): 0.5 s doubling to 10 s. */
export const RETRY_BACKOFF: Backoff = {firstMs: 500, lastMs: 10_000};

/**
 * The pause after `failures` failures in a row (0 after none): the backoff's ceiling for that
 * count, drawn at random from its upper half. The jitter keeps the hosts of a fleet that lost the
 * same server from all coming back at the same moment, and the lower bound keeps a pause from
 * shrinking to nothing. `random` is Math.random unless a test pins it.
 */
export function retryDelayMs(failures: number, backoff: Backoff = RETRY_BACKOFF, random: () => number = Math.random): number {
	if (failures <= 0) return 0;
	const ceiling = Math.min(backoff.lastMs, backoff.firstMs * 2 ** Math.min(failures - 1, 30));
	return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}
