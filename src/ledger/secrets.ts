import {createHmac, timingSafeEqual} from 'node:crypto';
import type {LedgerReader} from './reader.ts';

/**
 * Keys derived from the ledger's secret (migration 5), one per use, so that the key an agent holds
 * for the telemetry receiver says nothing of the key its host ships to the fleet with
 * (docs/otel.md, "Only agents it invited"; docs/fleet.md, "Who may write a host's rows").
 */
export type SecretUse = 'otel' | 'fleet';

/** The ledger's key for one use: 64 hex digits, the same for as long as the ledger file lives. */
export function ledgerKey(reader: LedgerReader, use: SecretUse): string {
	return createHmac('sha256', reader.secret()).update(`controlroom ${use}`).digest('hex');
}

/** Whether `given` is `expected`, in a time that does not depend on where they differ. */
export function isSameKey(given: string | undefined, expected: string): boolean {
	if (given === undefined) return false;
	const a = Buffer.from(given);
	const b = Buffer.from(expected);
	return a.length === b.length && timingSafeEqual(a, b);
}
