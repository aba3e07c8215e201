import {spawn, spawnSync, type ChildProcess} from 'node:child_process';
import {mkdirSync, symlinkSync} from 'node:fs';
import {join} from 'node:path';
import type {Ledger} from '../../ledger/open-ledger.ts';
import {holdDemoWrite, REVIEWED_TASK, reviewWhenDone} from './gate-work.ts';

/** Silence after which the demo board calls a task stalled (the default is 600 s; a demo cannot wait that long). */
export const DEMO_STALL_SECONDS = 20;
/** How often the demo board runs its reconciler pass, so the crash shows as lost within seconds. */
export const DEMO_RECONCILE_MS = 2000;
/** When the crashing agent and its wrapper are killed with SIGKILL. */
const CRASH_AFTER_MS = 8000;

/** The simulated agents a demo started, and how to end them. */
export type Demo = {
	/** Stops every process the demo started (process groups, SIGTERM then SIGKILL). */
	stop(): Promise<void>;
};

type Started = {readonly child: ChildProcess; readonly name: string};

const PROGRESS_AGENT = `let i = 0; const t = setInterval(() => { i++; process.stdout.write('PROGRESS ' + i + '/20\\n'); if (i === 20) { clearInterval(t); setTimeout(() => process.exit(0), 500); } }, 5000);`;
const FINISHING_AGENT = `process.stdout.write('updating lockfile\\n'); setTimeout(() => { process.stdout.write('done\\n'); process.exit(0); }, 6000);`;
const CRASHING_AGENT = `setInterval(() => process.stdout.write('migrating rows...\\n'), 2000);`;
const IDLE_PROCESS = `setInterval(() => {}, 1 << 30);`;
const NOTES_AGENT = `process.stdout.write('release notes written\\n'); setTimeout(() => process.exit(0), 1500);`;
/** The crashing agent's task id. */
const CRASHING_TASK = 'w-orders';

/** Starts the demo's agents against the ledger in `home`; every one goes through the real binary. */
export function startDemo(bin: string, home: string, ledger: Ledger): Demo {
	const env = {...process.env, CONTROLROOM_HOME: home, CONTROLROOM_DEBUG: ''};
	const started: Started[] = [];
	const timers: NodeJS.Timeout[] = [];
	const launch = (name: string, command: string, args: readonly string[], extraEnv: NodeJS.ProcessEnv = {}): ChildProcess => {
		// Each agent leads its own process group, so the demo can end it and everything it spawned.
		const child = spawn(command, [...args], {env: {...env, ...extraEnv}, stdio: 'ignore', detached: true});
		child.on('error', () => {});
		started.push({child, name});
		return child;
	};
	// Each wrapped agent works in its own folder: one checkout each, so admission slots never queue them.
	const wrapped = (taskId: string, title: string, script: string, extra: readonly string[] = []) => {
		const cwd = join(home, 'work', title.split(' ').slice(0, 2).join('-'));
		mkdirSync(cwd, {recursive: true});
		return launch(title, process.execPath, [
			bin,
			'run',
			'--ledger',
			ledger.path,
			'--task-id',
			taskId,
			'--title',
			title,
			'--cwd',
			cwd,
			...extra,
			'--',
			process.execPath,
			'-e',
			script,
		]);
	};

	wrapped('w-parser', 'refactor the parser (declares 20 steps)', PROGRESS_AGENT, ['--steps', '20']);
	wrapped('w-deps', 'bump dependencies (finishes)', FINISHING_AGENT);
	const crashing = wrapped(CRASHING_TASK, 'migrate the orders table (will crash)', CRASHING_AGENT);
	timers.push(setTimeout(() => crash(ledger, crashing), CRASH_AFTER_MS));

	// A worker whose review needs a person (x sends it back), and a write the effect gate holds (a
	// approves it): src/cli/demo/gate-work.ts.
	const notes = wrapped(REVIEWED_TASK, 'write the release notes (reviewed)', NOTES_AGENT);
	reviewWhenDone(bin, ledger.path, env, notes, review => started.push({child: review, name: 'review'}));
	void holdDemoWrite(bin, home, ledger.path, env).catch(() => undefined);

	// A Claude Code session seen only through its hooks: the "claude" process is a stand-in that
	// idles; the hook records its PID (CLAUDE_PID), a prompt, a tool call, a permission prompt, then silence.
	const claude = launch('claude session stand-in', process.execPath, ['-e', IDLE_PROCESS]);
	feedClaudeSession(bin, env, claude.pid ?? null, home);

	// An agent nobody registered: a process whose name is `codex`, for the reconciler to find.
	const codex = join(home, 'bin', 'codex');
	mkdirSync(join(home, 'bin'), {recursive: true});
	symlinkSync(process.execPath, codex);
	launch('untracked codex', codex, ['-e', IDLE_PROCESS]);

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

/** Sends a Claude Code session's hook payloads through `controlroom hook`, as Claude Code would. */
function feedClaudeSession(bin: string, env: NodeJS.ProcessEnv, pid: number | null, home: string): void {
	const session = `demo-${Date.now().toString(16)}-4a7e-9c1d-5f3b2e8a7c60`;
	const base = {session_id: session, transcript_path: join(home, `${session}.jsonl`), cwd: home, permission_mode: 'default'};
	const payloads = [
		{...base, hook_event_name: 'SessionStart', source: 'startup'},
		{...base, hook_event_name: 'UserPromptSubmit', prompt: 'add a retry to the flaky upload test'},
		{
			...base,
			hook_event_name: 'PreToolUse',
			tool_name: 'Bash',
			tool_input: {command: 'npm test -- upload', description: 'Run the upload tests'},
			tool_use_id: 'toolu_demo0001',
		},
		{
			...base,
			hook_event_name: 'Notification',
			message: 'Claude needs your permission to use Bash',
			notification_type: 'permission_prompt',
		},
	];
	for (const payload of payloads) {
		spawnSync(process.execPath, [bin, 'hook'], {
			input: JSON.stringify(payload),
			env: {...env, ...(pid === null ? {} : {CLAUDE_PID: String(pid)})},
			stdio: ['pipe', 'ignore', 'ignore'],
			timeout: 5000,
		});
	}
}
