import {spawn, type ChildProcess} from 'node:child_process';
import {chmodSync, mkdirSync, symlinkSync, writeFileSync} from 'node:fs';
import {dirname, join} from 'node:path';
import type {Ledger} from '../../ledger/open-ledger.ts';
import {CLAUDE_EVENTS, hookArgv, hookCommand, installHooksFile} from '../../producers/agent-hook/hooks-install.ts';
import {holdDemoWrite, REVIEWED_TASK, reviewWhenDone} from './gate-work.ts';

/** When the crashing agent and its wrapper are killed with SIGKILL. */
const CRASH_AFTER_MS = 8000;
/** When the agents that show no spend start, after those that do. */
const THE_REST_AFTER_MS = 1500;
/** The budget of the run that crosses it: under one of its turns (34,300 tokens each), so it asks within seconds. */
const DEMO_BUDGET_TOKENS = 30_000;

/** The simulated agents a demo started, and how to end them. */
export type Demo = {
	/** Stops every process the demo started (process groups, SIGTERM then SIGKILL). */
	stop(): Promise<void>;
};

type Started = {readonly child: ChildProcess; readonly name: string};

const PROGRESS_AGENT = `let i = 0; const t = setInterval(() => { i++; process.stdout.write('PROGRESS ' + i + '/20\\n'); if (i === 20) { clearInterval(t); setTimeout(() => process.exit(0), 500); } }, 5000);`;
const CRASHING_AGENT = `setInterval(() => process.stdout.write('migrating rows...\\n'), 2000);`;
const IDLE_PROCESS = `setInterval(() => {}, 1 << 30);`;
const NOTES_AGENT = `process.stdout.write('release notes written\\n'); setTimeout(() => process.exit(0), 1500);`;
/** The crashing agent's task id. */
const CRASHING_TASK = 'w-orders';

/** Single-quotes `text` for a POSIX shell command line. */
function shellQuote(text: string): string {
	return `'${text.replaceAll("'", `'\\''`)}'`;
}

/**
 * The demo's agents folder: `claude` and `codex`, each a script that runs the demo's stand-in for
 * that CLI (src/cli/demo/claude-stand-in.ts, codex-stand-in.ts) with the CLI's own arguments, so
 * the wrapper reads them as it reads the real ones (it knows an agent by its command's name).
 */
function agentsFolder(bin: string, home: string): string {
	const folder = join(home, 'agents');
	mkdirSync(folder, {recursive: true});
	for (const agent of ['claude', 'codex']) {
		const script = join(folder, agent);
		writeFileSync(script, `#!/bin/sh\nexec ${shellQuote(process.execPath)} ${shellQuote(bin)} demo --stand-in ${agent} "$@"\n`);
		chmodSync(script, 0o755);
	}
	return folder;
}

/**
 * Claude Code's config folder for the demo's sessions (CLAUDE_CONFIG_DIR), with controlroom's spool
 * hook installed in its settings as `hooks install --claude` installs it: the sessions report
 * through it, and their transcripts are read from its projects/ folder.
 */
function claudeConfig(bin: string, home: string): string {
	const folder = join(home, 'claude');
	const spoolScript = join(dirname(dirname(bin)), 'dist', 'producers', 'spool-hook.sh');
	const command = hookCommand(hookArgv('spool', {program: [process.execPath, bin], spoolScript}, 'claude'));
	installHooksFile(join(folder, 'settings.json'), CLAUDE_EVENTS, command);
	return folder;
}

/**
 * Starts the demo's agents against the ledger in `home`; every one goes through the real binary
 * and controlroom's own producers (the wrapper, the hooks, the transcripts, the telemetry
 * receiver at `otelUrl`).
 */
export function startDemo(bin: string, home: string, ledger: Ledger, otelUrl: string): Demo {
	const env = {...process.env, CONTROLROOM_HOME: home, CONTROLROOM_DEBUG: '', CLAUDE_CONFIG_DIR: claudeConfig(bin, home)};
	const agents = agentsFolder(bin, home);
	const started: Started[] = [];
	const timers: NodeJS.Timeout[] = [];
	const launch = (
		name: string,
		command: string,
		args: readonly string[],
		extraEnv: NodeJS.ProcessEnv = {},
		cwd: string = home,
	): ChildProcess => {
		// Each agent leads its own process group, so the demo can end it and everything it spawned.
		const child = spawn(command, [...args], {env: {...env, ...extraEnv}, stdio: 'ignore', detached: true, cwd});
		child.on('error', () => {});
		started.push({child, name});
		return child;
	};
	// Each wrapped agent works in its own folder: one checkout each, so admission slots never queue them.
	const folderOf = (title: string): string => {
		const cwd = join(home, 'work', title.split(' ').slice(0, 2).join('-'));
		mkdirSync(cwd, {recursive: true});
		return cwd;
	};
	const wrapped = (
		taskId: string,
		title: string,
		command: readonly string[],
		options: {readonly flags?: readonly string[]; readonly scenario?: string} = {},
	) =>
		launch(
			title,
			process.execPath,
			[
				bin,
				'run',
				'--ledger',
				ledger.path,
				'--task-id',
				taskId,
				'--title',
				title,
				'--cwd',
				folderOf(title),
				...(options.flags ?? []),
				'--',
				...command,
			],
			options.scenario === undefined ? {} : {CONTROLROOM_DEMO_SCENARIO: options.scenario},
		);
	const node = (script: string): string[] => [process.execPath, '-e', script];

	// Claude Code runs, through the wrapper: one crosses its budget and waits in Decisions for more
	// (its telemetry goes to the receiver, its cost to the result line); one finishes.
	wrapped(
		'w-tests',
		'run the test shards (budget 30k)',
		[join(agents, 'claude'), '-p', 'run the two test shards', '--output-format', 'stream-json', '--verbose'],
		{
			flags: ['--budget', String(DEMO_BUDGET_TOKENS), '--on-budget', 'ask', '--otel', otelUrl],
			scenario: 'budget',
		},
	);
	wrapped(
		'w-deps',
		'bump dependencies (finishes)',
		[join(agents, 'claude'), '-p', 'bump the dependencies and run the tests', '--output-format', 'json'],
		{
			scenario: 'finish',
		},
	);
	// A Codex run: its tokens from `exec --json`, its progress from its plan.
	wrapped('w-export', 'fix the CSV export (codex)', [join(agents, 'codex'), 'exec', '--json', 'fix the CSV export']);
	// A Claude Code session nobody wrapped, seen only through its hooks and its transcript: two
	// helpers read the code, then it waits at a permission prompt and goes quiet (stalled).
	launch('claude session', join(agents, 'claude'), [], {CONTROLROOM_DEMO_SCENARIO: 'session'}, folderOf('upload tests'));

	// The rest start a moment later: on a busy machine the agents above, which spend, get the cores first.
	const startTheRest = (): void => {
		wrapped('w-parser', 'refactor the parser (declares 20 steps)', node(PROGRESS_AGENT), {flags: ['--steps', '20']});
		const crashing = wrapped(CRASHING_TASK, 'migrate the orders table (will crash)', node(CRASHING_AGENT));
		timers.push(setTimeout(() => crash(ledger, crashing), CRASH_AFTER_MS));
		// A worker whose review needs a person (x sends it back), and a write the effect gate holds (a
		// approves it): src/cli/demo/gate-work.ts.
		const notes = wrapped(REVIEWED_TASK, 'write the release notes (reviewed)', node(NOTES_AGENT));
		reviewWhenDone(bin, ledger.path, env, notes, review => started.push({child: review, name: 'review'}));
		void holdDemoWrite(bin, home, ledger.path, env).catch(() => undefined);
		// An agent nobody registered: a process whose name is `codex`, for the reconciler to find.
		const codex = join(home, 'bin', 'codex');
		mkdirSync(join(home, 'bin'), {recursive: true});
		symlinkSync(process.execPath, codex);
		launch('untracked codex', codex, ['-e', IDLE_PROCESS]);
	};
	timers.push(setTimeout(startTheRest, THE_REST_AFTER_MS));

	// Whatever ends the demo (a crash too), its agents end with it: the kernel does not end a
	// detached process group when its parent dies.
	const killAll = (): void => {
		for (const {child} of started) signalGroup(child, 'SIGKILL');
	};
	process.once('exit', killAll);
	return {
		async stop() {
			process.off('exit', killAll);
			for (const timer of timers) clearTimeout(timer);
			for (const {child} of started) signalGroup(child, 'SIGTERM');
			await new Promise(resolve => setTimeout(resolve, 800));
			for (const {child} of started) signalGroup(child, 'SIGKILL');
			for (const pgid of wrappedGroups(ledger)) signalPgid(pgid, 'SIGKILL');
		},
	};
}

function signalPgid(pgid: number, signal: NodeJS.Signals): void {
	try {
		process.kill(-pgid, signal);
	} catch {
		// Already gone.
	}
}

/** Signals a child's process group; a child in the demo's own group (the review) alone. */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
	if (child.pid === undefined || child.exitCode !== null) return;
	try {
		process.kill(-child.pid, signal);
	} catch {
		signalPid(child.pid, signal);
	}
}

function signalPid(pid: number, signal: NodeJS.Signals): void {
	try {
		process.kill(pid, signal);
	} catch {
		// Already gone.
	}
}

/** Process groups of the wrapped children this demo's ledger knows of, so none outlives the demo. */
function wrappedGroups(ledger: Ledger): number[] {
	return ledger.reader
		.tasksForView(null)
		.filter(task => task.source === 'wrapper' && task.pgid !== null)
		.map(task => task.pgid ?? 0);
}

/** A crash: the wrapper and its child die by SIGKILL, so no exit is ever recorded; the reconciler finds it lost. */
function crash(ledger: Ledger, wrapper: ChildProcess): void {
	const task = ledger.reader.task(CRASHING_TASK);
	if (wrapper.pid !== undefined) signalPgid(wrapper.pid, 'SIGKILL');
	if (task?.pgid) signalPgid(task.pgid, 'SIGKILL');
	else if (task?.pid) signalPgid(task.pid, 'SIGKILL');
}
