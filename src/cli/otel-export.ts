import {setTimeout as sleep} from 'node:timers/promises';
import {otlpBaseUrl} from '../core/otel/claude-telemetry.ts';
import {parseDuration} from '../core/duration.ts';
import {terminalSafe} from '../core/terminal-text.ts';
import {hostIdentity} from '../ledger/host.ts';
import type {Ledger} from '../ledger/open-ledger.ts';
import {createLedgerExporter, type ExportPass} from '../otel/ledger-export.ts';
import {createSpanSender, type Protocol} from '../otel/span-export.ts';
import {watchLedger} from '../producers/ledger-watch.ts';
import {parseCommandArgs} from './args.ts';
import {openCommandLedger, out} from './context.ts';
import {CliError, USAGE_EXIT} from './errors.ts';
import {packageVersion} from './package-root.ts';
import {stopOnSignals} from './signals.ts';

/** A collector that is down is tried again after 0.5 s, doubling to 10 s. */
const FIRST_RETRY_MS = 500;
const LAST_RETRY_MS = 10_000;
/** With --follow, the longest wait between passes when the ledger says nothing. */
const FOLLOW_POLL_MS = 5000;

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

function line(pass: ExportPass): string | null {
	if (pass.state === 'sent' && pass.spans > 0) return `otel export: ${pass.spans} spans sent (cursor ${pass.cursor})`;
	return null;
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
	const endpoint = otlpBaseUrl(values.endpoint);
	if (endpoint === null)
		throw new CliError(`--endpoint: expected an http:// or https:// URL, got '${terminalSafe(values.endpoint)}'`, USAGE_EXIT);
	const protocol = values.protocol ?? 'json';
	if (protocol !== 'json' && protocol !== 'protobuf')
		throw new CliError(`--protocol: expected json or protobuf, got '${terminalSafe(protocol)}'`, USAGE_EXIT);
	const ledger = openCommandLedger(values.ledger, {mode: 'existing'});
	const host = hostIdentity(ledger);
	const sender = createSpanSender({endpoint, protocol: protocol as Protocol, serviceVersion: packageVersion(), host: host.name});
	const exporter = createLedgerExporter(ledger, sender, {
		endpoint,
		host: host.name,
		startAfter: startAfterOf(ledger, values.since),
	});
	const stopping = stopOnSignals();
	let wake: (() => void) | null = null;
	// A change seen while a pass ran: the next pause ends at once.
	let changed = false;
	const unwatch = values.follow
		? watchLedger(ledger.path, () => {
				changed = true;
				wake?.();
			})
		: null;
	const pause = (ms: number) =>
		new Promise<void>(resolve => {
			if (changed) {
				changed = false;
				return resolve();
			}
			const done = () => {
				wake = null;
				changed = false;
				clearTimeout(timer);
				stopping.signal.removeEventListener('abort', done);
				resolve();
			};
			const timer = setTimeout(done, ms);
			wake = done;
			stopping.signal.addEventListener('abort', done, {once: true});
		});
	let retryMs = FIRST_RETRY_MS;
	let wasDown = false;
	try {
		while (!stopping.signal.aborted) {
			const pass = await exporter.pass();
			if (values.json) out(JSON.stringify(pass));
			if (pass.state === 'failed') {
				if (!values.follow) {
					process.stderr.write(
						`controlroom: otel export: ${terminalSafe(pass.message ?? 'failed')}; the cursor stays at ${pass.cursor}\n`,
					);
					return 1;
				}
				if (!wasDown) process.stderr.write(`controlroom: otel export: ${terminalSafe(pass.message ?? 'failed')}; retrying\n`);
				wasDown = true;
				await sleep(retryMs, undefined, {signal: stopping.signal}).catch(() => undefined);
				retryMs = Math.min(retryMs * 2, LAST_RETRY_MS);
				continue;
			}
			if (wasDown) process.stderr.write(`controlroom: otel export: the collector is back (cursor ${pass.cursor})\n`);
			wasDown = false;
			retryMs = FIRST_RETRY_MS;
			const text = values.json ? null : line(pass);
			if (text) out(text);
			if (pass.state === 'idle') {
				if (!values.follow) return 0;
				await pause(FOLLOW_POLL_MS);
			}
		}
		return stopping.exitCode() ?? 0;
	} finally {
		stopping.dispose();
		await unwatch?.();
		await sender.close();
		ledger.close();
	}
}
