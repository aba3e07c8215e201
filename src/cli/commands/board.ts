import {writeSync} from 'node:fs';
import type {DueHandoffs} from '../../handoff/due-handoffs.ts';
import type {ReactionRule} from '../../core/reactions/rules.ts';
import type {reactAfterPass as ReactAfterPass} from '../reactions-file.ts';
import {homedir} from 'node:os';
import {join, sep} from 'node:path';
import type {BoardAdapters} from '../../../hooks/use-control-room.ts';
import {parseDuration} from '../../core/duration.ts';
import {loadWithGlobalsHidden} from '../../core/hidden-globals.ts';
import {createNoticeChannel, mergeNoticeSources, type NoticeSource} from '../../core/board/notice-channel.ts';
import type {BoardOptions} from '../../core/board/selectors.ts';
import {acknowledgeSignal} from '../../gates/acknowledge.ts';
import {isApproverAlive} from '../../gates/effects/liveness.ts';
import {createBoardFeed} from '../../ledger/board-feed.ts';
import {describeFleetError, isFleetUrl, redactUrl} from '../../ledger/fleet/connection.ts';
import type {FleetFeed} from '../../ledger/fleet/fleet-feed.ts';
import {hostName} from '../../ledger/host.ts';
import {quickCheckInBackground} from '../../ledger/integrity-check.ts';
import {createChainWatch} from '../../ledger/chain-watch.ts';
import type {Ledger} from '../../ledger/open-ledger.ts';
import {spoolDir} from '../../ledger/paths.ts';
import {makePrivateDir} from '../../ledger/private-files.ts';
import {agentNamesFrom, DEFAULT_RECONCILE_INTERVAL_MS} from '../../producers/reconcile-options.ts';
import type {TranscriptFollow} from '../../producers/transcript-follow.ts';
import {createLogReader} from '../../producers/task-log.ts';
import {SIGNAL_EXITS} from '../signals.ts';
import {createNotifier, DESKTOP_NOTIFY, type DesktopNotify} from '../board-notify.ts';
import {parseCommandArgs, positiveInt} from '../args.ts';
import {boardLook, type BoardLook} from '../board-look.ts';
import {commandSettings} from '../config-file.ts';
import {drawFirstFrame} from '../first-frame.ts';
import {loadPriceTable} from '../price-file.ts';
import {openCommandLedger} from '../context.ts';
import {packageRoot} from '../package-root.ts';
import {nonEmptyAs, personName} from '../person-name.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import {momentOf, parseAt, type AtFlag} from '../at-flag.ts';
import {pastBoardAdapters} from '../board-at.ts';
import {openReadingLedger} from '../reading-ledger.ts';
import {createStatusSummaryKeeper} from '../status-summary-keeper.ts';
import type {CommandHelp} from '../help.ts';
import type {Receiver} from '../../otel/receiver.ts';

export const help: CommandHelp = {
	synopsis: [
		'[board] [--stall SECONDS] [--since DURATION] [--reconcile SECONDS] [--no-bell]',
		'[board] [--notify-command CMD] [--desktop-notify HOW] [--no-notify] [--as NAME]',
		'[board] [--read-only] [--no-mouse]',
		'[board] --otel-port N [--reconcile SECONDS] [...]',
		'[board] --ledger postgres://... [--stall SECONDS] [--since DURATION] [--no-bell]',
		'[board] --at TIME|SEQ [--stall SECONDS] [--since DURATION] [--as NAME]',
	],
	description: `Opens the board (what \`controlroom\` alone does): lanes for running, stalled, lost, untracked and
recently ended tasks, and the Needs you, Reviews and Held effects panels; the header names the
ledger shown. Press ? on the board for its keys, q to quit (Ctrl-C quits with exit status 130).
It runs a reconciler pass itself, so it shows the truth even when nothing else runs. Needs a
terminal; scripts use snapshot. On a fleet ledger (--ledger postgres://..., docs/fleet.md) it shows
every host (a host column when there are several), tailed through LISTEN/NOTIFY; s and k become
requests that the task's host carries out, shown as pending until then. With --otel-port it also
runs \`otel receive\` on 127.0.0.1:N for as long as it is open, so the agents' own telemetry (exact
cost, model, tokens) lands on their tasks with nothing else running (docs/otel.md); the
receiver's errors show on the notice line. With --at it shows the board as it was at that moment,
read-only, and keys step it back and forward by event and by minute, up to now (? lists them;
docs/flight-recorder.md, "The board at a past moment").`,
	options: [
		[
			'--stall SECONDS',
			"silence after which a running task is stalled (default 600, or the config file's stallSeconds; a task's own wins)",
		],
		['--since DURATION', 'how long ended tasks stay under "recently ended" (default 24h, or endedWindow)'],
		[
			'--reconcile SECONDS',
			'how often the board runs a reconciler pass itself (default 5, or reconcileIntervalSeconds; not on a fleet ledger)',
		],
		['--no-bell', 'no terminal bell when a new entry comes into Needs you (or bell: false)'],
		[
			'--no-mouse',
			'no mouse: the terminal selects text as usual (or mouse: false); with it, a click selects a row and the wheel scrolls',
		],
		[
			'--notify-command CMD',
			'run CMD (with sh -c) for each entry new to Needs you, the entry as one JSON line on stdin (docs/tmux.md)',
		],
		[
			'--desktop-notify HOW',
			'a desktop notification for each new entry: auto (notify-send where present, else OSC 9; the default), osc9, osc777, notify-send, off',
		],
		['--no-notify', 'no notifications at all (neither desktop nor --notify-command); the bell is --no-bell'],
		['--as NAME', 'whose looks mark finished tasks seen (default $USER; docs/tmux.md, "Seen and unseen")'],
		[
			'--read-only',
			'for a shared screen: no key that acts (stop, approve, answer, send back, acknowledge), none in help or the bar; looking marks nothing seen',
		],
		[
			'--otel-port N',
			"run the OTLP/HTTP receiver on 127.0.0.1:N while the board is open (0 picks a free port, shown): the agents' telemetry lands on their tasks (not on a fleet ledger)",
		],
		[
			'--at TIME|SEQ',
			"the board as it was then, read-only: an ISO time (2026-05-01T03:12:00Z), a time ago (90m, 2h), or an event's seq; [ ] step by event, { } by minute, > to now (not on a fleet ledger: snapshot --at there)",
		],
	],
	exits: [
		['0', 'quit with q'],
		['1', 'the ledger cannot be opened (the message names it), or the fleet server cannot be reached'],
		[
			'64',
			'bad command line (--reconcile or --otel-port with a fleet ledger or --at, a port that is not a number, a bad --at, --at on a fleet ledger), no ledger at --ledger PATH, or not a terminal',
		],
		['69', '--otel-port: the port is taken'],
		['78', 'the config file or a CONTROLROOM_* variable is wrong (the line names it; docs/config.md)'],
		['128+N', 'ended by signal N: Ctrl-C gives 130 (SIGHUP 129, SIGTERM 143); the terminal is restored'],
	],
	examples: [
		['controlroom', 'the board on your ledger ($CONTROLROOM_HOME/ledger.db)'],
		['controlroom board --read-only', 'the board for a shared screen: it shows, no key acts'],
		['controlroom --ledger ./ci-ledger.db --since 7d', "another ledger, with a week's ended tasks"],
		['controlroom --ledger postgres://fleet.example/db', 'every host that syncs to the fleet ledger'],
		['controlroom board --at 2026-05-01T03:12:00Z', 'the board as it was at 03:12 UTC, to step through'],
	],
};

/** A path as a person reads it: the home folder as `~`. */
function homeAsTilde(path: string): string {
	const home = homedir();
	return path === home || path.startsWith(`${home}${sep}`) ? `~${path.slice(home.length)}` : path;
}

// The alternate screen, as k9s and less use it: the shell's screen comes back as it was.
const ENTER_ALT_SCREEN = '\u001B[?1049h\u001B[H';
// Clear the board's screen, show the cursor, leave the alternate screen.
const LEAVE_ALT_SCREEN = '\u001B[2J\u001B[H\u001B[?25h\u001B[?1049l';
/** Signals that end the board with the terminal restored, and the exit status each gives (128 + N). */
/** The board ends on these as every long-running command does (src/cli/signals.ts). */
const ENDING_SIGNALS = SIGNAL_EXITS;
const BELL = '\u0007';
// Mouse reports while the board has the screen: presses and the wheel (1000) in SGR form (1006),
// which has no column limit and says which button was released.
const MOUSE_ON = '\u001B[?1000h\u001B[?1006h';
const MOUSE_OFF = '\u001B[?1006l\u001B[?1000l';

/** How the board is opened. */
export type BoardRun = {
	readonly stallSeconds?: number;
	readonly endedWindowMs?: number;
	readonly reconcileIntervalMs?: number;
	/** Agent process names the board's reconciler pass looks for. */
	readonly agentNames?: readonly string[];
	/** Finds untracked agents only under this process (the demo's own PID): see ReconcileOptions. */
	readonly untrackedUnder?: number;
	/** Ring the terminal bell when a new entry comes into Needs you (default on). */
	readonly isBellOn?: boolean;
	/** Notifications for new Needs you entries (docs/tmux.md); absent: none. */
	readonly notify?: {readonly command?: string; readonly desktop: DesktopNotify};
	/** Whose looks mark finished tasks seen (`--as`); $USER when absent (docs/tmux.md, "Seen and unseen"). */
	readonly person?: string;
	/** Notices of what runs beside the board (the `--otel-port` receiver) for its notice line. */
	readonly notices?: NoticeSource;
	/** The keys and colours in force (the config file's `keys` and `colors`; board-look.ts). */
	readonly look?: BoardLook;
	/** `--read-only`: no key that acts, for a shared screen. */
	readonly isReadOnly?: boolean;
	/** A click selects a row, the wheel scrolls (default on; `--no-mouse`, `mouse: false`). */
	readonly isMouseOn?: boolean;
};

/** The options every board takes from its run: the key table in force and whether it is read-only. */
function lookOptions(run: BoardRun): Pick<BoardOptions, 'keyTable' | 'isReadOnly'> {
	return {...(run.look ? {keyTable: run.look.keyTable} : {}), ...(run.isReadOnly === true ? {isReadOnly: true} : {})};
}

/** The notifier a board run asks for, writing its escape sequences beside Ink's frames. */
function notifierOf(run: BoardRun): Pick<BoardAdapters, 'notify'> {
	if (!run.notify) return {};
	return {notify: createNotifier({...run.notify, write: text => void process.stdout.write(text)})};
}

/** Wires the board to a ledger: the feed, the spool fold, `s` through stopTask, `x` through sendBack, and the reconciler timer. */
export function boardAdapters(ledger: Ledger, run: BoardRun = {}): BoardAdapters {
	const spool = spoolDir(ledger.path);
	const keepStatusSummary = createStatusSummaryKeeper(ledger);
	// The folder is watched for the spool hook's files: it must exist before the watch starts, or
	// the first events wait for the reconciler's pass instead of showing at once.
	try {
		// Owner only, as every folder controlroom makes (docs/ledger.md, "Privacy").
		makePrivateDir(spool);
	} catch {
		// Not ours to create (a file there, no permission): the reconciler pass still folds what comes.
	}
	const agentNames = run.agentNames ?? agentNamesFrom(process.env['CONTROLROOM_AGENT_NAMES']);
	// Live sessions' transcripts, watched from the reconciler's first pass (docs/hooks.md, "Token usage").
	let transcripts: TranscriptFollow | undefined;
	let resumeHeld: ((taskId: string) => void) | undefined;
	let handoffs: DueHandoffs | undefined;
	let reactions: {rules: readonly ReactionRule[]; react: typeof ReactAfterPass} | undefined;
	const person = personName(run.person);
	// The board's own notices (a wrong reaction rule file), beside a receiver's if one runs.
	const boardNotices = createNoticeChannel();
	return {
		feed: createBoardFeed(ledger, {
			isApproverAlive,
			person,
			acknowledge: (taskId, signalAt, now) => acknowledgeSignal(ledger, {taskId, signalAt, now, source: 'board'}),
			...(run.endedWindowMs === undefined ? {} : {endedWindowMs: run.endedWindowMs}),
		}),
		ledgerFiles: [ledger.path, `${ledger.path}-wal`],
		spoolDir: spool,
		// The spool's parsers load at the first spool file, after the first frame; the fold's own write
		// wakes the feed. A fold that fails is done again by the reconciler's pass, which says why.
		onSpool: () =>
			void import('../../ledger/spool.ts')
				.then(({foldSpool}) => {
					foldSpool(ledger, spool);
					transcripts?.catchUp();
				})
				.catch(() => undefined),
		options: {
			ledgerLabel: homeAsTilde(ledger.path),
			person,
			// The user's prices, as snapshot and run read them (a wrong file: one line, exit 78, before the board opens).
			prices: loadPriceTable(),
			...(run.stallSeconds === undefined ? {} : {stallSeconds: run.stallSeconds}),
			...(run.endedWindowMs === undefined ? {} : {endedWindowMs: run.endedWindowMs}),
			...lookOptions(run),
		},
		...(run.look ? {palette: run.look.palette} : {}),
		// What no key has asked for yet is loaded when it is first used: stopping, sending back, approving
		// and the reconciler's pass (five seconds in) are no part of the first frame, and their modules
		// cost more loading than drawing it (docs/board.md, "How it stays live").
		stop: async taskId => {
			const {stopTask} = await import('../../producers/stop.ts');
			const result = await stopTask(ledger, taskId, {source: 'board'});
			return {isStopped: result.outcome === 'stopped', message: result.message};
		},
		sendBack: async (taskId, reason) => (await import('../board-send-back.ts')).sendBackFromBoard(ledger, taskId, reason),
		message: async (taskId, text) => (await import('../board-message.ts')).messageFromBoard(ledger, taskId, text),
		approveEffects: async refs => (await import('../../gates/effects/board-actions.ts')).approveFromBoard(ledger, refs),
		sendBackOrder: async (orderId, reason) =>
			(await import('../../gates/effects/held.ts')).sendBackHeld(ledger, orderId, reason, 'board'),
		decide: async (decisionId, answer, reason, headroom) =>
			(await import('../../gates/decisions.ts')).decideFromBoard(ledger, decisionId, answer, reason, headroom ?? null),
		// t: the board's own pane is where prefix B comes back to (docs/tmux.md).
		jump: async taskId => (await import('../../producers/tmux-jump.ts')).jumpToTask(taskId, ledger.reader.resolveTask(taskId)),
		reconcile: async () => {
			const [{reconcileOnce}, {settleEffects}, {settleDecisions}] = await Promise.all([
				import('../../producers/reconciler.ts'),
				import('../../gates/effects/held.ts'),
				import('../../gates/decisions.ts'),
			]);
			// A held run answered after its wrapper was killed: its resume starts here (docs/headless-holds.md).
			resumeHeld ??= (await import('../spawn-resume.ts')).spawnResume(ledger.path);
			reconcileOnce(ledger, {
				agentNames,
				resumeHeld,
				...(run.untrackedUnder === undefined ? {} : {untrackedUnder: run.untrackedUnder}),
			});
			// From the first pass on, live sessions' transcripts are watched: tokens land as each answer is written.
			transcripts ??= (await import('../../producers/transcript-follow.ts')).followTranscripts(ledger);
			transcripts.catchUp();
			// Held effects past expiry, and effects whose approval died mid-call, are recorded as such.
			settleEffects(ledger);
			// Questions whose waiting hook died (docs/decisions.md, "Crash safety").
			settleDecisions(ledger);
			// The reaction rules (docs/reactions.md); a wrong rule file makes none run here (reactions check says why).
			const current: NonNullable<typeof reactions> =
				reactions ??
				(await import('../reactions-file.ts').then(module => {
					try {
						return {rules: module.loadReactionRules(undefined).rules, react: module.reactAfterPass};
					} catch (error) {
						// Said once on the notice line, so a person does not trust rules that never run.
						const problem = error instanceof Error ? error.message : String(error);
						boardNotices.post({tone: 'error', text: `${problem}; no reaction rule runs on this board`});
						return {rules: [], react: module.reactAfterPass};
					}
				}));
			reactions = current;
			const {rules: reactionRules, react} = current;
			if (reactionRules.length > 0) await react(ledger, reactionRules, false);
			// Sessions that ended get their handoff (docs/handoffs.md); not the demo's, whose folders are made up.
			if (run.untrackedUnder === undefined) {
				handoffs ??= (await import('../../handoff/due-handoffs.ts')).dueHandoffs(ledger);
				handoffs.pass();
			}
			keepStatusSummary();
		},
		reconcileIntervalMs: run.reconcileIntervalMs ?? DEFAULT_RECONCILE_INTERVAL_MS,
		logs: createLogReader(ledger),
		// A long-lived process checks its ledger when it opens (issue 18); on its own thread, since a
		// large ledger takes seconds.
		checkIntegrity: () => quickCheckInBackground(ledger.path, join(packageRoot(), 'dist', 'ledger', 'integrity-worker.js')),
		checkChain: createChainWatch(ledger, join(packageRoot(), 'dist', 'ledger', 'integrity-worker.js')),
		// BEL is one byte that moves no cursor, so it can be written beside Ink's frames; tmux turns it into a window alert.
		...(run.isBellOn === false ? {} : {bell: () => void process.stdout.write(BELL)}),
		...notifierOf(run),
		notices: run.notices ? mergeNoticeSources(run.notices, boardNotices) : boardNotices,
	};
}

/** Wires the board to a fleet ledger: the fleet feed, and `s`, `k`, `x` and `a` as requests for the task's (or order's) host. */
function fleetAdapters(feed: FleetFeed, run: BoardRun, url: string): BoardAdapters {
	return {
		feed,
		ledgerFiles: [],
		spoolDir: null,
		options: {
			// The header names the server, its password left out.
			ledgerLabel: redactUrl(url),
			...(run.stallSeconds === undefined ? {} : {stallSeconds: run.stallSeconds}),
			...(run.endedWindowMs === undefined ? {} : {endedWindowMs: run.endedWindowMs}),
			...lookOptions(run),
		},
		...(run.look ? {palette: run.look.palette} : {}),
		stop: async key => {
			const {task, requestId} = await feed.request(key, 'stop', {});
			return {
				isStopped: false,
				isPending: true,
				message: `stop of ${task.id} requested from ${task.host} (request #${requestId}); pending until its sync carries it out`,
			};
		},
		// x and a, as requests the task's (or order's) host carries out with the functions behind its own keys.
		sendBack: async (key, reason) => {
			// Loaded at the first x, as the local board loads its send-back (gate-call brings the review gate).
			const {task, requestId} = await feed.request(key, 'sendBack', {reason, by: personName(undefined)});
			return {
				isSentBack: true,
				message: `send back of ${task.id} requested from ${task.host} (request #${requestId}); pending until its sync carries it out`,
			};
		},
		sendBackOrder: async (key, reason) => {
			const {order, requestId} = await feed.requestForOrder(key, 'sendBackOrder', {reason});
			return {
				message: `send back of ${order.id}'s held effects requested from ${order.host} (request #${requestId}); pending until its sync carries it out`,
			};
		},
		approveEffects: async refs => {
			const byOrder = new Map<string, string[]>();
			for (const ref of refs) byOrder.set(ref.orderId, [...(byOrder.get(ref.orderId) ?? []), ref.id]);
			const asked: string[] = [];
			for (const [key, only] of byOrder) {
				const {order, requestId} = await feed.requestForOrder(key, 'approve', {only});
				asked.push(`${order.id} on ${order.host} (request #${requestId})`);
			}
			return {isSuccess: true, message: `approval requested: ${asked.join(', ')}; pending until the host's sync carries it out`};
		},
		...(run.isBellOn === false ? {} : {bell: () => void process.stdout.write(BELL)}),
		...notifierOf(run),
	};
}

/** Writes to the terminal at once, bypassing the stream's queue: the last bytes before exit must arrive. */
function writeNow(text: string): void {
	try {
		writeSync(process.stdout.fd, text);
	} catch {
		// The terminal is gone (hung up): nothing left to restore.
	}
}

/**
 * Shows the board until the person quits, and returns the exit status: 0 for `q`, 130 for
 * Ctrl-C, 128+N for a signal. Whichever way it ends, the terminal is given back as it was: main
 * screen, cursor shown, line editing back on. The first frame is drawn before Ink loads
 * (docs/board.md, "The first frame"); Ink then draws the same frame over it and carries on.
 */
async function showAdapters(adapters: BoardAdapters, isMouseOn = true, time?: () => number): Promise<number> {
	// The board takes the alternate screen, as k9s and less do, so quitting gives the shell back as it was.
	process.stdout.write(ENTER_ALT_SCREEN + (isMouseOn ? MOUSE_ON : ''));
	// Raw mode from the start: a key typed before Ink's input hook subscribes must not be echoed by
	// the terminal into the frame (Ink turns it on in an effect, after the first frame).
	process.stdin.setRawMode?.(true);
	let status: number = 0;
	let stop: (() => void) | null = null;
	// A signal while Ink loads ends the board as one after it does.
	const onSignal = (signal: keyof typeof ENDING_SIGNALS) => () => {
		status = ENDING_SIGNALS[signal];
		stop?.();
	};
	const handlers = Object.keys(ENDING_SIGNALS).map(name => {
		const signal = name as keyof typeof ENDING_SIGNALS;
		const handler = onSignal(signal);
		process.on(signal, handler);
		return [signal, handler] as const;
	});
	try {
		// A past board (a clock of its own) opens on Ink's first frame: its header names a moment
		// the plain writer does not lay out.
		const opening = time === undefined ? drawFirstFrame(adapters, (text: string) => void process.stdout.write(text)) : undefined;
		// Ink's layout engine reads its WebAssembly through `fetch` when there is one: 200 ms (main.ts).
		const {renderBoard} = await loadWithGlobalsHidden(['fetch'], () => import('../board-ink.ts'));
		if (status !== 0) return status;
		const app = renderBoard(adapters, opening, time);
		stop = () => app.unmount();
		try {
			const result = await app.waitUntilExit();
			if (typeof result === 'number') status = result;
		} finally {
			app.unmount();
		}
	} finally {
		process.stdin.setRawMode?.(false);
		writeNow((isMouseOn ? MOUSE_OFF : '') + LEAVE_ALT_SCREEN);
		for (const [signal, handler] of handlers) process.off(signal, handler);
	}
	return status;
}

/** Shows the board on an open ledger until the person quits; returns the exit status. */
export async function showBoard(ledger: Ledger, run: BoardRun = {}): Promise<number> {
	return showAdapters(boardAdapters(ledger, run), run.isMouseOn !== false);
}

/** The board on a fleet ledger: every host that syncs there, tailed through LISTEN/NOTIFY. */
async function showFleetBoard(url: string, run: BoardRun): Promise<number> {
	const [{createFleetFeed}, {askerOnThisTerminal}] = await Promise.all([
		import('../../ledger/fleet/fleet-feed.ts'),
		import('../../gates/person-gate.ts'),
	]);
	const feed = createFleetFeed(url, {
		requestedBy: `board@${hostName()}`,
		asker: askerOnThisTerminal(),
		...(run.endedWindowMs === undefined ? {} : {endedWindowMs: run.endedWindowMs}),
	});
	try {
		await feed.start(Date.now());
	} catch (error) {
		await feed.close();
		throw new CliError(describeFleetError(error, url));
	}
	try {
		return await showAdapters(fleetAdapters(feed, run, url), run.isMouseOn !== false);
	} finally {
		await feed.close();
	}
}

/** The board at a past moment (`board --at`): read-only, stepping through time (docs/flight-recorder.md). */
async function showPastBoard(ledgerFlag: string | undefined, at: AtFlag, run: BoardRun): Promise<number> {
	const ledger = openReadingLedger(ledgerFlag);
	try {
		const past = pastBoardAdapters(ledger, momentOf(ledger.reader, at), {
			ledgerLabel: homeAsTilde(ledger.path),
			prices: loadPriceTable(),
			person: personName(run.person),
			...(run.stallSeconds === undefined ? {} : {stallSeconds: run.stallSeconds}),
			...(run.endedWindowMs === undefined ? {} : {endedWindowMs: run.endedWindowMs}),
		});
		// The keys and colours in force are the live board's (the config file's keys and colors).
		const adapters = {
			...past,
			options: {...past.options, ...lookOptions(run)},
			...(run.look ? {palette: run.look.palette} : {}),
		};
		return await showAdapters(adapters, run.isMouseOn !== false, adapters.past.now);
	} finally {
		ledger.close();
	}
}

/** What the notification flags ask for; null with --no-notify (docs/tmux.md, "Notifications"). */
function notifyOf(command: string | undefined, desktop: string | undefined, isOff: boolean): BoardRun['notify'] | null {
	if (isOff) {
		if (command !== undefined || desktop !== undefined)
			throw new CliError(
				'board: --no-notify turns every notification off: leave out --notify-command and --desktop-notify',
				USAGE_EXIT,
			);
		return null;
	}
	if (command !== undefined && command.trim() === '') throw new CliError('--notify-command: the command is empty', USAGE_EXIT);
	const how = desktop ?? 'auto';
	if (!(DESKTOP_NOTIFY as readonly string[]).includes(how))
		throw new CliError(`--desktop-notify: expected one of ${DESKTOP_NOTIFY.join(', ')}, got '${how}'`, USAGE_EXIT);
	return {...(command === undefined ? {} : {command}), desktop: how as DesktopNotify};
}

/** `controlroom board`: the Ink control room on a ledger, until `q`. */
export async function run(argv: readonly string[]): Promise<number> {
	const {values} = parseCommandArgs(
		'board',
		argv,
		{
			stall: {type: 'string'},
			since: {type: 'string'},
			reconcile: {type: 'string'},
			'no-bell': {type: 'boolean'},
			'notify-command': {type: 'string'},
			'desktop-notify': {type: 'string'},
			'no-notify': {type: 'boolean'},
			as: {type: 'string'},
			'otel-port': {type: 'string'},
			at: {type: 'string'},
			'read-only': {type: 'boolean'},
			'no-mouse': {type: 'boolean'},
		},
		false,
	);
	const at = parseAt(values.at);
	const notify = notifyOf(values['notify-command'], values['desktop-notify'], values['no-notify'] === true);
	const stallSeconds = positiveInt('stall', values.stall);
	const reconcileSeconds = positiveInt('reconcile', values.reconcile);
	// Loaded only when asked for: the receiver and its decoders are no part of the board's first frame.
	const otel = values['otel-port'] === undefined ? null : await import('../otel-receive.ts');
	const otelPort = otel?.portOf(values['otel-port'], '--otel-port') ?? null;
	const endedWindow = values.since === undefined ? undefined : parseDuration(values.since);
	if (endedWindow === null)
		throw new CliError(`--since: expected a duration like 90m, 24h or 7d, got '${values.since}'`, USAGE_EXIT);
	const flags = {
		stallSeconds,
		endedWindow,
		reconcileIntervalSeconds: reconcileSeconds,
		agentNames: undefined,
		bell: values['no-bell'] === true ? false : undefined,
		mouse: values['no-mouse'] === true ? false : undefined,
	};
	if (!process.stdin.isTTY || !process.stdout.isTTY) {
		throw new CliError('board: needs a terminal (use `controlroom snapshot` in scripts and CI)', USAGE_EXIT);
	}
	const settings = commandSettings(flags);
	const boardRun: BoardRun = {
		stallSeconds: settings.stallSeconds,
		endedWindowMs: settings.endedWindow,
		reconcileIntervalMs: settings.reconcileIntervalSeconds * 1000,
		agentNames: settings.agentNames,
		isBellOn: settings.bell,
		isMouseOn: settings.mouse,
		...(notify ? {notify} : {}),
		...(values.as === undefined ? {} : {person: nonEmptyAs('board', values.as)}),
		look: boardLook(),
		...(values['read-only'] === true ? {isReadOnly: true} : {}),
	};
	if (at !== undefined) {
		if (isFleetUrl(values.ledger))
			throw new CliError(
				'board: --at does not apply to a fleet ledger yet: `controlroom snapshot --at TIME --ledger postgres://...` shows the fleet then',
				USAGE_EXIT,
			);
		if (reconcileSeconds !== undefined || values['otel-port'] !== undefined)
			throw new CliError('board: --at shows a past moment read-only: --reconcile and --otel-port do not apply', USAGE_EXIT);
		return await showPastBoard(values.ledger, at, boardRun);
	}
	if (isFleetUrl(values.ledger)) {
		if (reconcileSeconds !== undefined)
			throw new CliError('board: --reconcile does not apply to a fleet ledger (each host reconciles itself)', USAGE_EXIT);
		if (values['otel-port'] !== undefined)
			throw new CliError(
				"board: --otel-port does not apply to a fleet ledger (telemetry lands in a host's own ledger: run it on the host)",
				USAGE_EXIT,
			);
		return await showFleetBoard(values.ledger, boardRun);
	}
	const ledger = openCommandLedger(values.ledger, {mode: 'existing'});
	let receiver: Receiver | null = null;
	try {
		if (otel !== null && otelPort !== null) {
			const notices = createNoticeChannel();
			// Before the board takes the screen: a port that is taken is one line on the shell's screen, exit 69.
			receiver = await otel.startReceiverBeside(ledger, otelPort, 'board', message =>
				notices.post({tone: 'error', text: `otel receive: ${message}`}),
			);
			notices.post({tone: 'info', text: `otel receive: listening on ${receiver.url} (run --otel ${receiver.url} sends here)`});
			return await showBoard(ledger, {...boardRun, notices});
		}
		return await showBoard(ledger, boardRun);
	} finally {
		await receiver?.close();
		ledger.close();
	}
}
