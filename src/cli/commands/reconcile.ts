import {appendAnchorIfDue} from '../../ledger/anchors.ts';
import {spawnResume} from '../spawn-resume.ts';
import {minimumOf} from '../../core/settings.ts';
import {setTimeout as sleep} from 'node:timers/promises';
import {settingFromText} from '../../core/settings.ts';
import {reconcileOnce, type ReconcileResult} from '../../producers/reconciler.ts';
import {followTranscripts} from '../../producers/transcript-follow.ts';
import {isFleetUrl} from '../../ledger/fleet/connection.ts';
import {hostIdentity} from '../../ledger/host.ts';
import {selfLauncher} from '../gate-call.ts';
import {settleDecisions} from '../../gates/decisions.ts';
import {dueHandoffs} from '../../handoff/due-handoffs.ts';
import type {Ledger} from '../../ledger/open-ledger.ts';
import {createFleetSyncer} from '../../fleet/fleet-sync.ts';
import {stopOnSignals} from '../signals.ts';
import {parseCommandArgs, positiveSeconds, refusePasswordInUrl} from '../args.ts';
import {commandSettings} from '../config-file.ts';
import {openCommandLedger, out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import {createStatusSummaryKeeper} from '../status-summary-keeper.ts';
import type {CommandHelp} from '../help.ts';
import {portOf, startReceiverBeside} from '../otel-receive.ts';

/** Exit code of a reconciler whose ledger file was moved, deleted or replaced while it ran (it went on with the file at its path). */
const LEDGER_REPLACED_EXIT = 3;

export const help: CommandHelp = {
	synopsis: [
		'reconcile [--once] [--interval SECONDS] [--agents NAMES] [--sync-to URL] [--json]',
		'reconcile --otel-port N [--interval SECONDS] [--agents NAMES] [--sync-to URL]',
	],
	description: `Each pass: folds spool files into the ledger; marks running tasks whose process is gone with no
exit as lost (a hook session whose last turn had completed ends instead, exit code unknown);
records agent processes nobody registered (claude, codex, or --agents / CONTROLROOM_AGENT_NAMES) as
untracked, ended (outcome unknown) when they vanish; appends the chain's head to LEDGER.anchors
when the last anchor there is five minutes old (docs/ledger.md, "Anchors"). Without --once it repeats every
--interval seconds until interrupted (the board runs the same pass on its own timer). With
--sync-to, each pass then ships the ledger to that fleet ledger and carries out its requests, as
\`controlroom sync\` does (docs/fleet.md); a server out of reach is retried with backoff and never
holds the reconciler up.`,
	options: [
		['--once', 'one pass, then exit'],
		['--interval SECONDS', "time between passes (default 5, or the config file's reconcileIntervalSeconds)"],
		[
			'--agents NAMES',
			'comma-separated process names to look for instead of claude and codex (or CONTROLROOM_AGENT_NAMES, or agentNames)',
		],
		['--sync-to URL', 'a fleet ledger (postgres://..., no password in it) to ship to after each pass'],
		['--accept-unsigned-approvals', "with --sync-to: carry out fleet approvals no person's key signed (docs/fleet.md)"],
		[
			'--otel-port N',
			"also run `otel receive` on 127.0.0.1:N while it runs: the agents' own telemetry lands on their tasks (docs/otel.md)",
		],
		['--json', 'one JSON line per pass (and one per sync)'],
	],
	exits: [
		['0', 'done (--once)'],
		['1', 'the ledger cannot be opened or written'],
		[
			'3',
			'the ledger file was moved, deleted or replaced while it ran (it said so on stderr and went on with the file at its path)',
		],
		[
			'64',
			'bad command line (a --sync-to that is not postgres://...), or no ledger at --ledger PATH (only run and ingest create one)',
		],
		['69', '--otel-port: the port is taken'],
		['78', 'the config file or a CONTROLROOM_* variable is wrong (the line names it; docs/config.md)'],
		['128+N', 'stopped by signal N after the pass under way: Ctrl-C gives 130, SIGTERM 143'],
	],
	examples: [
		['controlroom reconcile --once', 'one pass now, with a one-line summary'],
		['controlroom reconcile --interval 10 --agents aider,goose', 'a pass every 10 s, also looking for aider and goose'],
		['controlroom reconcile --sync-to postgres://fleet.example/db', 'reconcile, and keep the fleet ledger up to date'],
	],
};

function summary(result: ReconcileResult): string {
	const parts = [
		`spool ${result.spool.lines} lines (${result.spool.appended} events, ${result.spool.rejected} rejected` +
			`${result.spool.setAside ? `, ${result.spool.setAside} files moved to spool/rejected/` : ''})`,
		`lost ${result.lost.length}${result.lost.length ? ` [${result.lost.map(entry => entry.taskId).join(', ')}]` : ''}`,
		`ended ${result.ended.length}${result.ended.length ? ` [${result.ended.map(entry => entry.taskId).join(', ')}]` : ''}`,
		`untracked ${result.discovered.length}${result.discovered.length ? ` [${result.discovered.map(entry => `${entry.taskId} ${entry.name}`).join(', ')}]` : ''}`,
		`${result.processes} processes in ${result.elapsedMs.toFixed(1)} ms`,
	];
	return `reconciled: ${parts.join('; ')}`;
}

/** The receiver beside the reconciler: its notices on stderr, prefixed, never over the pass summaries. */
async function startOtelReceiver(ledger: Ledger, port: number) {
	try {
		const receiver = await startReceiverBeside(ledger, port, 'reconcile', message =>
			process.stderr.write(`controlroom: otel receive: ${message}\n`),
		);
		process.stderr.write(`controlroom: otel receive: listening on ${receiver.url}\n`);
		return receiver;
	} catch (error) {
		ledger.close();
		throw error;
	}
}

/** `controlroom reconcile`: the reconciler, once or on a timer. */
export async function run(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('reconcile', argv, {
		once: {type: 'boolean'},
		interval: {type: 'string'},
		agents: {type: 'string'},
		json: {type: 'boolean'},
		'sync-to': {type: 'string'},
		'accept-unsigned-approvals': {type: 'boolean'},
		'otel-port': {type: 'string'},
	});
	if (positionals.length > 0) throw new CliError(`reconcile: unexpected argument '${positionals[0]}'`, USAGE_EXIT);
	const flags = {
		reconcileIntervalSeconds: positiveSeconds('interval', values.interval, minimumOf('reconcileIntervalSeconds')),
		// An --agents with no name in it (`--agents ,`) is as good as none.
		agentNames: values.agents === undefined ? undefined : (settingFromText('names', values.agents) ?? undefined),
		unsignedFleetApprovals: values['accept-unsigned-approvals'] === true ? true : undefined,
	};
	const syncTo = values['sync-to'];
	if (syncTo !== undefined && !isFleetUrl(syncTo)) throw new CliError('reconcile: --sync-to expects postgres://...', USAGE_EXIT);
	if (syncTo !== undefined) refusePasswordInUrl('--sync-to', syncTo);
	const settings = commandSettings(flags);
	const intervalMs = settings.reconcileIntervalSeconds * 1000;
	const {agentNames} = settings;
	if (values.once && values['otel-port'] !== undefined)
		throw new CliError('reconcile: --otel-port goes with a reconciler that keeps running (no --once)', USAGE_EXIT);
	const otelPort = values['otel-port'] === undefined ? null : portOf(values['otel-port'], '--otel-port');
	const ledger = openCommandLedger(values.ledger, {mode: 'existing'});
	const receiver = otelPort === null ? null : await startOtelReceiver(ledger, otelPort);
	if (!values.once) {
		// A long-lived writer checks the file once on open: it would otherwise add to a damaged ledger for hours.
		const problems = ledger.quickCheck();
		if (problems.length > 0) {
			process.stderr.write(
				`controlroom: the ledger ${ledger.path} fails PRAGMA quick_check: ${problems[0]} (controlroom doctor)\n`,
			);
		}
	}
	const syncer =
		syncTo === undefined
			? null
			: createFleetSyncer({
					url: syncTo,
					ledger,
					host: hostIdentity(ledger),
					launcher: selfLauncher(),
					acceptsUnsignedApprovals: settings.unsignedFleetApprovals,
				});
	let nextSyncAt = 0;
	let lastState: string | null = null;
	/** One sync after the pass, unless the previous one failed and its backoff has not passed. */
	const syncAfterPass = async (): Promise<void> => {
		if (!syncer || Date.now() < nextSyncAt) return;
		const pass = await syncer.pass();
		nextSyncAt = Date.now() + syncer.retryDelayMs();
		if (values.json) return out(JSON.stringify({sync: pass}));
		if (pass.state !== 'synced' && pass.state !== lastState) process.stderr.write(`controlroom: sync: ${pass.message}\n`);
		else if (pass.state === 'synced' && lastState !== null && lastState !== 'synced')
			process.stderr.write(`controlroom: sync: caught up to seq ${pass.fleetSeq}\n`);
		else if (pass.shipped > 0 || pass.handled.length > 0)
			out(`synced: ${pass.shipped} events, ${pass.handled.length} requests carried out (seq ${pass.fleetSeq})`);
		lastState = pass.state;
	};
	let anchorFailure: string | null = null;
	/** The chain's head in the anchors file beside the ledger, every few minutes (docs/ledger.md, "Anchors"). */
	const keepAnchor = (): void => {
		try {
			appendAnchorIfDue(ledger.reader, ledger.file, Date.now());
			anchorFailure = null;
		} catch (error) {
			const why = (error as Error).message.split('\n')[0] ?? '';
			if (why !== anchorFailure) process.stderr.write(`controlroom: could not write the ledger's anchor: ${why}\n`);
			anchorFailure = why;
		}
	};
	const stopping = stopOnSignals();
	let exitCode = 0;
	// Between passes, live sessions' transcripts are watched: tokens land as each answer is written.
	const transcripts = values.once ? null : followTranscripts(ledger);
	const keepStatusSummary = createStatusSummaryKeeper(ledger);
	// A held run answered after its wrapper was killed: its resume is started here (docs/headless-holds.md).
	const resumeHeld = spawnResume(ledger.path);
	// Sessions that ended get their handoff here, not in their SessionEnd hook (docs/handoffs.md).
	const handoffs = dueHandoffs(ledger);
	try {
		for (;;) {
			const result = reconcileOnce(ledger, {agentNames, resumeHeld});
			keepStatusSummary();
			keepAnchor();
			// Questions whose waiting hook died leave the queue (docs/decisions.md, "Crash safety").
			settleDecisions(ledger);
			handoffs.pass();
			transcripts?.catchUp();
			if (result.ledgerChange) {
				exitCode = LEDGER_REPLACED_EXIT;
				const {path, kind, movedTo} = result.ledgerChange;
				process.stderr.write(
					movedTo === undefined
						? `controlroom: the ledger ${path} was ${kind}: reconciling the new file there from now on\n`
						: `controlroom: the ledger ${path} was moved to ${movedTo}, with every event it held: reconciling the ledger at ${path} from now on\n`,
				);
			}
			out(values.json ? JSON.stringify(result) : summary(result));
			await syncAfterPass();
			if (values.once) return exitCode;
			if (stopping.signal.aborted) return stopping.exitCode() ?? exitCode;
			await sleep(intervalMs, undefined, {signal: stopping.signal}).catch(() => undefined);
			if (stopping.signal.aborted) return stopping.exitCode() ?? exitCode;
		}
	} finally {
		stopping.dispose();
		await receiver?.close();
		transcripts?.close();
		await syncer?.close();
		ledger.close();
	}
}
