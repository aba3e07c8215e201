import {parseDuration} from '../core/duration.ts';
import {terminalSafe} from '../core/terminal-text.ts';
import {hostIdentity} from '../ledger/host.ts';
import type {Ledger} from '../ledger/open-ledger.ts';
import {parseCommandArgs} from './args.ts';
import {openCommandLedger, out} from './context.ts';
import {CliError, USAGE_EXIT} from './errors.ts';
import {exportLedger, exportPassLine, exportTargetOf} from './otel-export-loop.ts';
import {stopOnSignals} from './signals.ts';

/** Exit code when another process exports this ledger to the same endpoint (EX_TEMPFAIL, as sync's lock). */
export const EXPORT_LOCKED_EXIT = 75;

/** The first seq after a time: events are appended in time order, near enough to search by seq. */
function seqAfterTime(ledger: Ledger, since: number): number {
	let low = 0;
	let high = ledger.reader.lastSeq();
	while (low < high) {
		const middle = Math.floor((low + high + 1) / 2);
		const row = ledger.reader.storedEventAt(middle);
		if (row === undefined || row.at < since) low = middle;
		else high = middle - 1;
	}
	return low;
}

function startAfterOf(ledger: Ledger, since: string | undefined): number | null {
	if (since === undefined) return null;
	if (/^\d+$/.test(since.trim())) return Number(since.trim());
	const ms = parseDuration(since);
	if (ms === null)
		throw new CliError(`--since: expected a seq or a duration (30m, 2h, 1d), got '${terminalSafe(since)}'`, USAGE_EXIT);
	return seqAfterTime(ledger, Date.now() - ms);
}

/** `controlroom otel export`. */
export async function exportSpans(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('otel export', argv, {
		endpoint: {type: 'string'},
		follow: {type: 'boolean'},
		since: {type: 'string'},
		protocol: {type: 'string'},
		json: {type: 'boolean'},
	});
	if (positionals.length > 0)
		throw new CliError(`otel export: unexpected argument '${terminalSafe(positionals[0] ?? '')}'`, USAGE_EXIT);
	if (values.endpoint === undefined) throw new CliError('otel export: --endpoint URL is required', USAGE_EXIT);
	const target = exportTargetOf({endpoint: '--endpoint', protocol: '--protocol'}, values.endpoint, values.protocol);
	const ledger = openCommandLedger(values.ledger, {mode: 'existing'});
	const stopping = stopOnSignals();
	const say = (text: string): void => void process.stderr.write(`controlroom: otel export: ${terminalSafe(text)}\n`);
	try {
		const end = await exportLedger(ledger, target, {
			follow: values.follow === true,
			startAfter: startAfterOf(ledger, values.since),
			host: hostIdentity(ledger).name,
			holder: values.follow ? 'otel export --follow' : 'otel export',
			signal: stopping.signal,
			notes: {
				pass(pass) {
					const text = values.json ? JSON.stringify(pass) : exportPassLine(pass);
					if (text) out(text);
				},
				down: message => say(`${message}; retrying`),
				back: cursor => say(`the collector is back (cursor ${cursor})`),
				waiting: heldBy => say(`${heldBy} exports this ledger to ${target.endpoint}; waiting to take over when it stops`),
			},
		});
		switch (end.state) {
			case 'done':
				return 0;
			case 'stopped':
				return stopping.exitCode() ?? 0;
			case 'failed':
				say(`${end.message}; the cursor stays at ${end.cursor}`);
				return 1;
			case 'locked':
				throw new CliError(
					`otel export: ${end.heldBy} exports this ledger to ${target.endpoint} now; this one stops (it sends each span once)`,
					EXPORT_LOCKED_EXIT,
				);
		}
	} finally {
		stopping.dispose();
		ledger.close();
	}
}
