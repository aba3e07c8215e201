import {createHmac, timingSafeEqual} from 'node:crypto';
import type {Ledger} from './open-ledger.ts';

/**
 * Keys derived from the ledger's secret, one per use, so that the key an agent holds for the
 * telemetry receiver says nothing of the key its host ships to the fleet with (docs/otel.md, "Only
 * agents it invited"; docs/fleet.md, "Who may write a host's rows"). The secret is 32 random
 * bytes made in the ledger the first time a key is asked for (`ledger_meta`, row `ledger_secret`),
 * and kept for as long as the ledger file lives; only the ledger's owner can read it.
 */
export type SecretUse = 'otel' | 'fleet';

/** The ledger's key for one use: 64 hex digits. */
export function ledgerKey(ledger: Pick<Ledger, 'reader' | 'writer'>, use: SecretUse): string {
	let secret = ledger.reader.secret();
	if (secret === undefined) {
		ledger.writer.makeSecret();
		secret = ledger.reader.secret() ?? '';
	}
	return createHmac('sha256', secret).update(`controlroom ${use}`).digest('hex');
}

/** Whether `given` is `expected`, in a time that does not depend on where they differ. */
export function isSameKey(given: string | undefined, expected: string): boolean {
	if (given === undefined) return false;
	const a = Buffer.from(given);
	const b = Buffer.from(expected);
	return a.length === b.length && timingSafeEqual(a, b);
}
