import {execFile, spawn, type ChildProcess} from 'node:child_process';
import {mkdtempSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {fileURLToPath} from 'node:url';
import {selectLanes} from '../../src/core/board/selectors.ts';
import type {Snapshot} from '../../src/core/snapshot.ts';
import {createBoardFeed} from '../../src/ledger/board-feed.ts';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {BIN} from '../helpers/cli.ts';
import type {Tmux} from '../helpers/tmux.ts';
import {requireRealClients} from '../helpers/realclients.ts';
import {onExit, onFileChange, onLedgerChange, waitFor, type Wakeup} from '../helpers/wait-for.ts';
import {foldSpool} from '../../src/ledger/spool.ts';
import {spoolDir} from '../../src/ledger/paths.ts';
import {readSnapshot} from '../../src/ledger/snapshot-query.ts';
import {processesWithEnv} from '../../src/producers/proc-table.ts';
import type {Ledger} from '../../src/ledger/open-ledger.ts';

/** The launchers of the real CLIs against the file's shared fake servers. */
export const CLAUDE_AT = fileURLToPath(new URL('claude-at.sh', import.meta.url));
export const CODEX_AT = fileURLToPath(new URL('codex-at.sh', import.meta.url));

/** Agents of other rows (and of the machine) are not a row's own: reconciler passes look for none unless a row says so. */
export const NO_AGENTS = {CONTROLROOM_AGENT_NAMES: 'cr-no-such-agent'};

export type CliResult = {readonly status: number | null; readonly stdout: string; readonly stderr: string};

/** A process a row started, with its output and its end. */
export type Started = {
	readonly child: ChildProcess;
	readonly pid: number;
	output(): string;
	readonly done: Promise<{code: number | null; signal: NodeJS.Signals | null}>;
};

/** One board row as the board draws it: its lane, status cell, idle cell and tokens cell. */
export type BoardRow = {readonly lane: string; readonly status: string; readonly idle: string; readonly tokens: string};

/** One snapshot task, as JSON v1 gives it. */
export type SnapshotTask = Snapshot['tasks'][number];

/**
 * A scratch world for one row: the agent's WORKDIR (its HOME and CLAUDE_CONFIG_DIR under it), a
 * ledger home, and the commands against them, all asynchronous: rows run side by side in one
 * worker, and a blocking spawn would hold every other row's waits.
 */
export class Box {
	readonly dir = mkdtempSync(join(tmpdir(), 'cr-conf-'));
	readonly home = join(this.dir, 'cr');
	readonly ledgerFile = join(this.home, 'ledger.db');
	readonly env: NodeJS.ProcessEnv;
	private readonly started: Started[] = [];
	private open: Ledger | null = null;

	constructor(extra: NodeJS.ProcessEnv = {}) {
		this.env = {...process.env, ...requireRealClients(), CONTROLROOM_HOME: this.home, ...NO_AGENTS, ...extra};
	}

	/** `controlroom ARGS` against this box's ledger, to its end. */
	cli(args: readonly string[], extra: NodeJS.ProcessEnv = {}): Promise<CliResult> {
		return new Promise(resolve => {
			execFile(
				process.execPath,
				[BIN, ...args],
				{env: {...this.env, ...extra}, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024},
				(error, stdout, stderr) => {
					const code = error && typeof (error as {code?: unknown}).code === 'number' ? (error as {code: number}).code : 0;
					resolve({status: error ? code : 0, stdout, stderr});
				},
			);
		});
	}

	/** `controlroom ingest -` of these lines (envelopes or payloads). */
	ingest(lines: readonly unknown[]): Promise<number | null> {
		return new Promise(resolve => {
			const child = spawn(process.execPath, [BIN, 'ingest', '-'], {env: this.env, stdio: ['pipe', 'ignore', 'ignore']});
			child.once('close', code => resolve(code));
			child.stdin.end(`${lines.map(line => JSON.stringify(line)).join('\n')}\n`);
		});
	}

	/** Installs controlroom's hooks where this box's Claude reads them (its CLAUDE_CONFIG_DIR), and makes the ledger. */
	async installClaudeHooks(): Promise<void> {
		const install = await this.cli(['hooks', 'install', '--claude'], {
			HOME: join(this.dir, 'another-home'),
			CLAUDE_CONFIG_DIR: join(this.dir, 'home', '.claude'),
		});
		if (install.status !== 0) throw new Error(`hooks install --claude: ${install.stderr}`);
		await this.reconcile();
	}

	/** Installs controlroom's hooks into this box's CODEX_HOME, and makes the ledger. */
	async installCodexHooks(): Promise<void> {
		const install = await this.cli(['hooks', 'install', '--codex'], {CODEX_HOME: join(this.dir, 'codex-home')});
		if (install.status !== 0) throw new Error(`hooks install --codex: ${install.stderr}`);
		await this.reconcile();
	}

	/** One reconciler pass (folds the spool, loses or ends what vanished); `agents` to look for untracked ones. */
	async reconcile(agents?: string): Promise<CliResult> {
		const pass = await this.cli(['reconcile', '--once', '--json'], agents ? {CONTROLROOM_AGENT_NAMES: agents} : {});
		if (pass.status !== 0) throw new Error(`reconcile --once: ${pass.stderr}`);
		return pass;
	}

	/** The snapshot's JSON, every task (`args` adds flags such as `--stall 20`). */
	async snapshot(args: readonly string[] = []): Promise<Snapshot> {
		const run = await this.cli(['snapshot', '--json', '--all', ...args]);
		if (run.status !== 0) throw new Error(`snapshot failed: ${run.stderr}`);
		return JSON.parse(run.stdout) as Snapshot;
	}

	/** One task of the snapshot. */
	async task(id: string, args: readonly string[] = []): Promise<SnapshotTask | undefined> {
		return (await this.snapshot(args)).tasks.find(task => task.id === id);
	}

	/**
	 * The board's answer for every task, as the board computes it: its own feed's first read of this
	 * ledger and its lane selector (what `controlroom` draws, without a terminal).
	 */
	board(options: {readonly stallSeconds?: number; readonly now?: number} = {}): Map<string, BoardRow> {
		const now = options.now ?? Date.now();
		const batch = createBoardFeed(this.ledger()).load(now);
		const stall = options.stallSeconds === undefined ? {} : {stallSeconds: options.stallSeconds};
		const lanes = selectLanes(batch.tasks, now, {filter: ''}, stall);
		const rows = new Map<string, BoardRow>();
		for (const line of lanes.lines) {
			if (line.kind === 'row') {
				rows.set(line.row.id, {lane: line.row.lane, status: line.row.status, idle: line.row.idle, tokens: line.row.tokens});
			}
		}
		// A helper folded under its parent (docs/tree-and-cost.md) is not a line until its tree is
		// opened; its own row is what the board then draws, with its own status and lane.
		for (const [id, row] of lanes.rows ?? new Map()) {
			if (!rows.has(id)) rows.set(id, {lane: row.lane, status: row.status, idle: row.idle, tokens: row.tokens});
		}
		return rows;
	}

	/** The box's ledger, opened once in this process for the row's waits. */
	ledger(): Ledger {
		this.open ??= openLedger(this.ledgerFile, {mustExist: true});
		return this.open;
	}

	/**
	 * Snapshot JSON as `controlroom snapshot --json --all` makes it, in this process: the spool folded
	 * first (as every reading command does), then the same read. For a row's waits, which look often;
	 * what a row claims it asserts on the command's own output.
	 */
	peek(options: {readonly stallSeconds?: number; readonly isFolded?: boolean} = {}): Snapshot {
		const ledger = this.ledger();
		if (options.isFolded !== false) foldSpool(ledger, spoolDir(ledger.path));
		return readSnapshot(ledger.reader, {
			now: Date.now(),
			windowMs: null,
			...(options.stallSeconds === undefined ? {} : {stallSeconds: options.stallSeconds}),
		});
	}

	/** A task as the ledger holds it now, read without folding or reading anything first. */
	ledgerTask(id: string) {
		return this.ledger().reader.task(id);
	}

	/** What wakes a row's wait on this box: the ledger's commits and the spool's files. */
	changes(): Wakeup[] {
		return [onLedgerChange(this.ledgerFile), onFileChange(join(this.home, 'spool', 'x'))];
	}

	/**
	 * The real board (`controlroom --ledger L ARGS`) in a tmux pane of its own, 200 columns wide so ids
	 * and cells are whole: returns the pane once `until` holds for it, then quits the board.
	 */
	async boardPane(tmux: Tmux, name: string, args: readonly string[], until: (pane: string) => boolean): Promise<string> {
		tmux.start(name, 200, 50, {CONTROLROOM_HOME: this.home, PATH: process.env['PATH'] ?? '', ...NO_AGENTS});
		try {
			tmux.type(name, `node ${BIN} --ledger ${this.ledgerFile} ${args.join(' ')}`);
			tmux.send(name, 'Enter');
			const {pane} = await tmux.waitFor(name, until, 60_000);
			tmux.send(name, 'q');
			return pane;
		} finally {
			tmux.run(['kill-session', '-t', name]);
		}
	}

	/** Starts a process of this row (not waiting for it); it is ended with the row if still alive. */
	start(
		command: string,
		args: readonly string[],
		extra: NodeJS.ProcessEnv = {},
		options: {readonly detached?: boolean} = {},
	): Started {
		const child = spawn(command, [...args], {
			env: {...this.env, ...extra},
			stdio: ['ignore', 'pipe', 'pipe'],
			detached: options.detached ?? false,
		});
		let text = '';
		child.stdout?.on('data', (chunk: Buffer) => (text += chunk.toString()));
		child.stderr?.on('data', (chunk: Buffer) => (text += chunk.toString()));
		const done = new Promise<{code: number | null; signal: NodeJS.Signals | null}>(resolve =>
			child.once('close', (code, signal) => resolve({code, signal})),
		);
		const started: Started = {child, pid: child.pid ?? -1, output: () => text, done};
		this.started.push(started);
		return started;
	}

	/** Starts the real Claude Code on the file's shared fake server (claude-at.sh). */
	claude(port: number, args: readonly string[], extra: NodeJS.ProcessEnv = {}): Started {
		return this.start(CLAUDE_AT, [this.dir, ...args], {FAKE_ANTHROPIC_PORT: String(port), ...extra});
	}

	/** Starts `controlroom run [RUN...] -- COMMAND...` against this box's ledger. */
	run(runArgs: readonly string[], command: readonly string[], extra: NodeJS.ProcessEnv = {}): Started {
		return this.start(process.execPath, [BIN, 'run', ...runArgs, '--', ...command], extra);
	}

	/** Waits for a process this row started to end. */
	async ended(started: Started, timeoutMs = 120_000): Promise<{code: number | null; signal: NodeJS.Signals | null}> {
		await waitFor(() => started.child.exitCode !== null || started.child.signalCode !== null, {
			what: `${started.child.spawnfile} to end`,
			timeoutMs,
			on: [onExit(started.child)],
		});
		return started.done;
	}

	/** The PIDs of every live process of this box: its CONTROLROOM_HOME is in their environment, wherever they moved. */
	processes(): number[] {
		return processesWithEnv('CONTROLROOM_HOME', this.home).map(found => found.pid);
	}

	/**
	 * Ends what the row started and is still alive, by PID: its own processes only, found by this
	 * box's CONTROLROOM_HOME in their environment (which every one of them inherited, wherever it moved).
	 */
	close(): void {
		this.open?.close();
		this.open = null;
		for (const started of this.started) {
			if (started.child.exitCode === null && started.child.signalCode === null) started.child.kill('SIGKILL');
		}
		for (const process of processesWithEnv('CONTROLROOM_HOME', this.home)) {
			try {
				globalThis.process.kill(process.pid, 'SIGKILL');
			} catch {
				// Gone meanwhile.
			}
		}
	}
}
