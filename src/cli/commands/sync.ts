import {minimumOf} from '../../core/settings.ts';
import {setTimeout as sleep} from 'node:timers/promises';
import {hostIdentity} from '../../ledger/host.ts';
import {isFleetUrl, redactUrl} from '../../ledger/fleet/connection.ts';
import {selfLauncher} from '../gate-call.ts';
import {createFleetSyncer, type SyncPass} from '../../fleet/fleet-sync.ts';
import {watchLedger} from '../../producers/ledger-watch.ts';
import {stopOnSignals} from '../signals.ts';
import {parseCommandArgs, positiveSeconds, refusePasswordInUrl} from '../args.ts';
import {commandSettings} from '../config-file.ts';
import {openCommandLedger, out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import type {CommandHelp} from '../help.ts';
import {terminalSafe} from '../../core/terminal-text.ts';
import type {Ledger} from '../../ledger/open-ledger.ts';
import {exportLedger, exportPassLine, exportTargetOf, type ExportTarget} from '../otel-export-loop.ts';

export const help: CommandHelp = {
	synopsis: [
		'sync --to postgres://... [--once | --interval SECONDS] [--json]',
		'sync --to postgres://... --otel-endpoint URL [--otel-protocol P] [--once]',
	],
	description: `Ships this ledger's events and task rows to the fleet ledger on PostgreSQL (idempotent by host
and seq, resuming from what the server holds), and carries out the requests fleet boards made for
this host (stop, acknowledge). Without --once it keeps going: it ships moments after each local
change, and at least every --interval seconds; when the server is out of reach it retries with
backoff (0.5 s doubling to 10 s) while local work goes on. The host is named by CONTROLROOM_HOST,
else the hostname; its id is made once per ledger (docs/fleet.md). With --otel-endpoint it also
sends this host's ledger to an OpenTelemetry collector as traces, as \`otel export --follow\` does
and with its cursor (docs/otel.md): each span once, a collector that is down retried without
holding the sync up, a fleet server that is down never holding the export up. One process at a time
exports a ledger to an endpoint: when an \`otel export --follow\` (or another sync) already does,
this sync says so once and waits to take over when it stops.`,
	options: [
		[
			'--to URL',
			'the fleet ledger, postgres://user@host:port/database (required); never with a password in it: PGPASSWORD or a password file (PGPASSFILE, else ~/.pgpass, mode 0600)',
		],
		[
			'--accept-unsigned-approvals',
			"carry out a fleet board's approvals of held effects though no person's key signed them (off: refused; docs/fleet.md)",
		],
		['--once', 'one pass, then exit'],
		['--interval SECONDS', "the longest time between passes (default 5, or the config file's syncIntervalSeconds)"],
		['--otel-endpoint URL', 'also export the ledger as OTLP traces to this collector, http(s)://HOST:PORT (docs/otel.md)'],
		['--otel-protocol json|protobuf', 'the OTLP/HTTP encoding of that export (default json)'],
		['--json', 'one JSON line per pass (an export pass: {"otel": ...})'],
	],
	exits: [
		['0', 'synced (--once)'],
		['1', 'the ledger or the fleet cannot be used (the message says why: a newer fleet schema, a copied ledger)'],
		[
			'64',
			'bad command line (no --to postgres://..., a URL with a password, --once with --interval), or no ledger at --ledger PATH',
		],
		['69', 'with --once: the server cannot be reached, or the collector did not take the spans (the cursor stays)'],
		[
			'75',
			'another sync of this host holds its lock, or (--once) another process exports this ledger to --otel-endpoint (the message names it)',
		],
		['78', 'the config file or a CONTROLROOM_* variable is wrong (the line names it; docs/config.md)'],
		['128+N', 'stopped by signal N after the pass under way: Ctrl-C gives 130, SIGTERM 143'],
	],
	examples: [
		['controlroom sync --to postgres://controlroom@127.0.0.1:5432/fleet', 'keep the fleet ledger up to date'],
		['CONTROLROOM_HOST=build-2 controlroom sync --to postgres://fleet.example/db --once', 'one pass, as host build-2'],
		[
			'controlroom sync --to postgres://fleet.example/db --otel-endpoint http://collector.example:4318',
			'keep the fleet ledger and the collector up to date',
		],
	],
};

/** Exit code when the server cannot be reached on a single pass (EX_UNAVAILABLE). */
const UNREACHABLE_EXIT = 69;
/** Exit code when another sync of the same host holds its lock (EX_TEMPFAIL). */
const LOCKED_EXIT = 75;
/** Local changes closer together than this are shipped in one pass. */
const CHANGE_BATCH_MS = 30;

function line(pass: SyncPass, hostName: string): string | null {
	const parts: string[] = [];
	if (pass.shipped > 0) parts.push(`${pass.shipped} events in ${pass.batches} batches, ${pass.tasks} task rows`);
	if (pass.escaped > 0)
		parts.push(
			`${pass.escaped} rows with a NUL or an unpaired surrogate escaped for PostgreSQL (controlroom rejects lists them)`,
		);
	if (pass.refused > 0) parts.push(`${pass.refused} rows refused by the server, kept in controlroom.rejects`);
	if (pass.foreign > 0)
		parts.push(
			`${pass.foreign} rows under this host's id not written with its key (another writer's): left as they are, this host's events at their seqs kept in controlroom.rejects`,
		);
	if (pass.taken.length > 0) parts.push(`took requests ${pass.taken.map(id => `#${id}`).join(', ')}`);
	for (const done of pass.handled)
		parts.push(`request #${done.requestId} ${done.verb} ${done.taskId}: ${done.outcome} (${done.message})`);
	if (parts.length === 0) return null;
	return `synced ${hostName} up to seq ${pass.fleetSeq}: ${parts.join('; ')} (${pass.elapsedMs.toFixed(0)} ms)`;
}

/** The export beside the sync loop, its notes said as sync says its own (text on stderr, or JSON lines). */
function startExport(ledger: Ledger, target: ExportTarget, host: string, once: boolean, isJson: boolean, signal: AbortSignal) {
	const say = (text: string): void => {
		if (!isJson) process.stderr.write(`controlroom: otel export: ${terminalSafe(text)}\n`);
	};
	return exportLedger(ledger, target, {
		follow: !once,
		startAfter: null,
		host,
		holder: 'sync --otel-endpoint',
		signal,
		notes: {
			pass(pass) {
				const text = isJson ? JSON.stringify({otel: pass}) : exportPassLine(pass);
				if (text) out(text);
			},
			down: message => say(`${message}; retrying (the sync goes on)`),
			back: cursor => say(`the collector is back (cursor ${cursor})`),
			waiting(heldBy) {
				if (isJson) out(JSON.stringify({otel: {state: 'waiting', heldBy}}));
				say(`${heldBy} exports this ledger to ${target.endpoint}; this sync waits to take over when it stops`);
			},
		},
	});
}

/** `controlroom sync --to URL`. */
export async function run(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('sync', argv, {
		to: {type: 'string'},
		once: {type: 'boolean'},
		interval: {type: 'string'},
		json: {type: 'boolean'},
		'otel-endpoint': {type: 'string'},
		'otel-protocol': {type: 'string'},
		'accept-unsigned-approvals': {type: 'boolean'},
	});
	if (positionals.length > 0) throw new CliError(`sync: unexpected argument '${positionals[0]}'`, USAGE_EXIT);
	if (!isFleetUrl(values.to)) throw new CliError('sync: --to postgres://... is required', USAGE_EXIT);
	refusePasswordInUrl('--to', values.to);
	if (values.once && values.interval !== undefined)
		throw new CliError('sync: --once and --interval exclude each other', USAGE_EXIT);
	if (isFleetUrl(values.ledger))
		throw new CliError('sync: --ledger names the local ledger file; the fleet goes in --to', USAGE_EXIT);
	const otelEndpoint = values['otel-endpoint'];
	if (otelEndpoint === undefined && values['otel-protocol'] !== undefined)
		throw new CliError('sync: --otel-protocol goes with --otel-endpoint URL', USAGE_EXIT);
	const otelTarget =
		otelEndpoint === undefined
			? null
			: exportTargetOf({endpoint: '--otel-endpoint', protocol: '--otel-protocol'}, otelEndpoint, values['otel-protocol']);
	const settings = commandSettings({
		syncIntervalSeconds: positiveSeconds('interval', values.interval, minimumOf('syncIntervalSeconds')),
		unsignedFleetApprovals: values['accept-unsigned-approvals'] === true ? true : undefined,
	});
	const intervalMs = settings.syncIntervalSeconds * 1000;
	const url = values.to;
	const ledger = openCommandLedger(values.ledger, {mode: 'existing'});
	const host = hostIdentity(ledger);
	const stopping = stopOnSignals();
	let wake = new AbortController();
	const poke = (): void => wake.abort();
	const syncer = createFleetSyncer({
		url,
		ledger,
		host,
		onWake: poke,
		launcher: selfLauncher(),
		acceptsUnsignedApprovals: settings.unsignedFleetApprovals,
	});
	const unwatch = values.once ? null : watchLedger(ledger.path, poke);
	// The export runs beside the sync loop, so neither's server holds the other up: it ends when the
	// sync ends, and a ledger error in it ends the sync (docs/otel.md, "From sync").
	const ending = new AbortController();
	const exportBroke = new AbortController();
	let exportError: unknown = null;
	const exporting =
		otelTarget === null
			? null
			: startExport(
					ledger,
					otelTarget,
					host.name,
					values.once === true,
					values.json === true,
					AbortSignal.any([stopping.signal, ending.signal]),
				).catch((error: unknown) => {
					exportError = error;
					exportBroke.abort();
					return null;
				});
	const report = (pass: SyncPass): void => {
		if (values.json) return out(JSON.stringify({host: host.name, hostId: host.id, ...pass}));
		const text = line(pass, host.name);
		if (text) out(text);
	};
	const syncLoop = async (): Promise<number> => {
		let wasDown = false;
		for (;;) {
			if (exportError !== null) throw exportError;
			wake = new AbortController();
			const pass = await syncer.pass();
			report(pass);
			if (pass.state === 'locked') throw new CliError(`sync: ${pass.message}; this one stops`, LOCKED_EXIT);
			if (pass.state === 'failed') throw new CliError(`sync: ${pass.message}`);
			if (pass.state === 'unreachable') {
				if (values.once) throw new CliError(`sync: ${pass.message}`, UNREACHABLE_EXIT);
				if (!values.json) process.stderr.write(`controlroom: sync: ${pass.message}; retrying in ${syncer.retryDelayMs()} ms\n`);
				wasDown = true;
			} else if (wasDown) {
				wasDown = false;
				if (!values.json)
					process.stderr.write(`controlroom: sync: reached ${redactUrl(url)} again; caught up to seq ${pass.fleetSeq}\n`);
			}
			if (values.once) {
				if (!values.json && pass.shipped === 0 && pass.handled.length === 0)
					out(`synced ${host.name}: the fleet already holds every event (seq ${pass.fleetSeq})`);
				return 0;
			}
			if (stopping.signal.aborted) return stopping.exitCode() ?? 0;
			// While the server is down, local changes wait for the backoff; otherwise they wake the loop.
			const delay = pass.state === 'unreachable' ? syncer.retryDelayMs() : intervalMs;
			const signals =
				pass.state === 'unreachable' ? [stopping.signal, exportBroke.signal] : [stopping.signal, exportBroke.signal, wake.signal];
			await sleep(delay, undefined, {signal: AbortSignal.any(signals)}).catch(() => undefined);
			if (stopping.signal.aborted) return stopping.exitCode() ?? 0;
			if (wake.signal.aborted) await sleep(CHANGE_BATCH_MS);
		}
	};
	try {
		if (!values.once || exporting === null) return await syncLoop();
		// --once: the pass and the export both run to their end; the sync's failure, else the export's, decides.
		const [synced, exported] = await Promise.allSettled([syncLoop(), exporting]);
		if (synced.status === 'rejected') throw synced.reason;
		if (exportError !== null) throw exportError;
		const end = exported.status === 'fulfilled' ? exported.value : null;
		if (end?.state === 'failed')
			throw new CliError(`sync: otel export: ${end.message}; the cursor stays at ${end.cursor}`, UNREACHABLE_EXIT);
		if (end?.state === 'locked')
			throw new CliError(
				`sync: otel export: ${end.heldBy} exports this ledger to ${otelTarget?.endpoint} now; this sync did not export`,
				LOCKED_EXIT,
			);
		return synced.value;
	} finally {
		ending.abort();
		await exporting;
		stopping.dispose();
		await unwatch?.();
		await syncer.close();
		ledger.close();
	}
}
