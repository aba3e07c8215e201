import {parseDuration} from '../core/duration.ts';
import {momentAtSeq, momentAtTime, type Moment} from '../ledger/reader-as-of.ts';
import type {LedgerReader} from '../ledger/reader.ts';
import {CliError, USAGE_EXIT} from './errors.ts';

/** What `--at` names: a seq, or a time (docs/ledger.md, "The ledger at a moment"). */
export type AtFlag = {readonly seq: number} | {readonly time: number};

/** The help line every command with --at shows. */
export const AT_HELP: readonly [string, string] = [
	'--at TIME|SEQ',
	'the ledger as it was then, by when events arrived: an ISO time (2026-05-01T03:12:00Z), a time ago (90m, 2h), or an event\'s seq; "now" for health and stalls is that moment (docs/ledger.md, "The ledger at a moment")',
];

/** Reads `--at`: a bare number is a seq, a number with a unit a time ago, anything else a time with its date. */
export function parseAt(value: string | undefined, now = Date.now()): AtFlag | undefined {
	if (value === undefined) return undefined;
	const text = value.trim();
	if (/^\d+$/.test(text)) {
		const seq = Number(text);
		if (!Number.isSafeInteger(seq) || seq < 1) throw new CliError(`--at: a seq is 1 or more, got '${value}'`, USAGE_EXIT);
		return {seq};
	}
	if (/^\d+(\.\d+)?\s*[smhdw]$/.test(text)) return {time: now - (parseDuration(text) ?? 0)};
	const time = /\d{4}-\d{2}-\d{2}/.test(text) ? Date.parse(text) : Number.NaN;
	if (Number.isNaN(time))
		throw new CliError(
			`--at: expected an ISO time (2026-05-01T03:12:00Z), a time ago (90m) or a seq, got '${value}'`,
			USAGE_EXIT,
		);
	return {time};
}

/** The moment `--at` names in this ledger. */
export function momentOf(reader: LedgerReader, at: AtFlag): Moment {
	return 'seq' in at ? momentAtSeq(reader, at.seq) : momentAtTime(reader, at.time);
}

/** A fleet's moment is a time: each host numbers its own events. */
export function fleetTime(at: AtFlag): number {
	if ('seq' in at)
		throw new CliError('--at: on a fleet ledger give a time, not a seq (each host numbers its own events)', USAGE_EXIT);
	return at.time;
}
