import {createHash} from 'node:crypto';
import {dirname, join} from 'node:path';
import {setTimeout as sleep} from 'node:timers/promises';
import {otlpBaseUrl} from '../core/otel/claude-telemetry.ts';
import {terminalSafe} from '../core/terminal-text.ts';
import type {Ledger} from '../ledger/open-ledger.ts';
import {createLedgerExporter, type ExportPass} from '../otel/ledger-export.ts';
import {createSpanSender, type Protocol} from '../otel/span-export.ts';
import {holdLabelledLock} from '../producers/admission.ts';
import {watchLedger} from '../producers/ledger-watch.ts';
import {CliError, USAGE_EXIT} from './errors.ts';
import {packageVersion} from './package-root.ts';
import {retryDelayMs} from '../core/backoff.ts';

/**
 * The export loop behind `otel export` and `sync --otel-endpoint` (docs/otel.md, "Export"): one
 * exporter per ledger and endpoint at a time (a lock beside the ledger), passes of the ledger
 * exporter until idle, and with `follow` the retries of a collector that is down and the wait
 * for the ledger to grow. Written once so both commands keep the same cursor the same way.
 */

/** With follow, the longest wait between passes when the ledger says nothing. */
const FOLLOW_POLL_MS = 5000;

/** Where spans go, and in which encoding. */
export type ExportTarget = {readonly endpoint: string; readonly protocol: Protocol};

/** The endpoint and protocol flags, checked; `flags` names them as the command spells them. */
export function exportTargetOf(
	flags: {readonly endpoint: string; readonly protocol: string},
	endpoint: string,
	protocol: string | undefined,
): ExportTarget {
	const base = otlpBaseUrl(endpoint);
	if (base === null)
		throw new CliError(`${flags.endpoint}: expected an http:// or https:// URL, got '${terminalSafe(endpoint)}'`, USAGE_EXIT);
	const encoding = protocol ?? 'json';
	if (encoding !== 'json' && encoding !== 'protobuf')
		throw new CliError(`${flags.protocol}: expected json or protobuf, got '${terminalSafe(encoding)}'`, USAGE_EXIT);
	return {endpoint: base, protocol: encoding};
}

/** What the loop tells its command as it goes. */
export type ExportNotes = {
	/** Every pass, sent, idle or failed. */
	readonly pass: (pass: ExportPass) => void;
	/** follow: the first failed pass of an outage (the cursor stays; retrying). */
	readonly down: (message: string) => void;
	/** follow: the first pass the collector took after an outage. */
	readonly back: (cursor: number) => void;
	/** follow: another process exports this ledger to this endpoint; this one waits to take over. */
	readonly waiting: (heldBy: string) => void;
};

/** How the loop ended. */
export type ExportEnd =
	| {readonly state: 'done'}
	| {readonly state: 'stopped'}
	| {readonly state: 'failed'; readonly message: string; readonly cursor: number}
	| {readonly state: 'locked'; readonly heldBy: string};

export type ExportLoopOptions = {
	/** Keep going as the ledger grows, retrying a collector that is down, until `signal`. */
	readonly follow: boolean;
	/** Start after this seq instead of the kept cursor (`--since`). */
	readonly startAfter: number | null;
	readonly host: string;
	/** Who this exporter is, for another one's "held by" line: `otel export`, `sync`. */
	readonly holder: string;
	readonly signal: AbortSignal;
	readonly notes: ExportNotes;
};

/**
 * The lock one ledger's export to one endpoint takes turns on, beside the ledger: two exporters
 * on one cursor would both send the batch after it before either moved it.
 */
function exportLockFile(ledger: Ledger, endpoint: string): string {
	const key = createHash('sha256').update(`${ledger.path}\0${endpoint}`).digest('hex').slice(0, 16);
	return join(dirname(ledger.path), 'locks', 'otel-export', `${key}.lock`);
}

/** The line a pass that sent something prints. */
export function exportPassLine(pass: ExportPass): string | null {
	if (pass.state === 'sent' && pass.spans > 0) return `otel export: ${pass.spans} spans sent (cursor ${pass.cursor})`;
	return null;
}

/** Runs the export until every span is sent (no follow) or until `signal` (follow). */
export async function exportLedger(ledger: Ledger, target: ExportTarget, options: ExportLoopOptions): Promise<ExportEnd> {
	const {signal, notes} = options;
	let lock;
	try {
		lock = await holdLabelledLock(exportLockFile(ledger, target.endpoint), options.holder, {
			wait: options.follow,
			onWait: notes.waiting,
			abort: signal,
		});
	} catch (error) {
		if (signal.aborted) return {state: 'stopped'};
		throw error;
	}
	if ('heldBy' in lock) return {state: 'locked', heldBy: lock.heldBy};
	const sender = createSpanSender({...target, serviceVersion: packageVersion(), host: options.host});
	const exporter = createLedgerExporter(ledger, sender, {
		endpoint: target.endpoint,
		host: options.host,
		startAfter: options.startAfter,
	});
	let wake: (() => void) | null = null;
	// A change seen while a pass ran: the next pause ends at once.
	let changed = false;
	const unwatch = options.follow
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
				signal.removeEventListener('abort', done);
				resolve();
			};
			const timer = setTimeout(done, ms);
			wake = done;
			signal.addEventListener('abort', done, {once: true});
		});
	let failures = 0;
	let wasDown = false;
	try {
		while (!signal.aborted) {
			const pass = await exporter.pass();
			notes.pass(pass);
			if (pass.state === 'failed') {
				const message = pass.message ?? 'failed';
				if (!options.follow) return {state: 'failed', message, cursor: pass.cursor};
				if (!wasDown) notes.down(message);
				wasDown = true;
				failures += 1;
				await sleep(retryDelayMs(failures), undefined, {signal}).catch(() => undefined);
				continue;
			}
			if (wasDown) notes.back(pass.cursor);
			wasDown = false;
			failures = 0;
			if (pass.state === 'idle') {
				if (!options.follow) return {state: 'done'};
				await pause(FOLLOW_POLL_MS);
			}
		}
		return {state: 'stopped'};
	} finally {
		await unwatch?.();
		await sender.close();
		lock.release();
	}
}
