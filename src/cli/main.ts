import {loadWithGlobalsHidden} from '../core/hidden-globals.ts';
import {terminalSafe} from '../core/terminal-text.ts';
import {LedgerFromFutureError} from '../ledger/migrations.ts';
import {AmbiguousTaskError} from '../ledger/reader.ts';
import {NOT_A_PERSON_EXIT, NotAPersonError} from '../core/actor.ts';
import {CliError, USAGE_EXIT} from './errors.ts';
import {renderHelp, renderOverview, renderReference, type CommandHelp} from './help.ts';
import {packageVersion} from './package-root.ts';
import {nearestName} from '../core/did-you-mean.ts';

/** A command module: its help and its entry, which returns the exit code. */
type CommandModule = {readonly help: CommandHelp; run(argv: readonly string[]): Promise<number>};

/**
 * Every verb, loaded only when used so one command never pays for another's imports. The summary
 * is the line `controlroom --help` shows; each module's `help` is what `COMMAND --help` prints.
 */
export const COMMANDS: Record<string, {readonly summary: string; readonly load: () => Promise<CommandModule>}> = {
	board: {summary: 'open the board (the default): lanes, Needs you, keys to act', load: () => import('./commands/board.ts')},
	demo: {summary: 'show the board on a scratch ledger of simulated agents', load: () => import('./commands/demo.ts')},
	snapshot: {summary: 'print the board once (text or --json), for CI', load: () => import('./commands/snapshot.ts')},
	timeline: {summary: "print one task's timeline", load: () => import('./commands/timeline.ts')},
	explain: {summary: 'say why a task shows what it shows, signal by signal', load: () => import('./commands/explain.ts')},
	verify: {
		summary: "check the ledger's hash chain: name the first event edited, deleted, inserted, moved or cut",
		load: () => import('./commands/verify.ts'),
	},
	audit: {
		summary: 'export every event with its actor, proof and chain link, for your own log store (audit export)',
		load: () => import('./commands/audit.ts'),
	},
	run: {summary: 'run an agent command as a recorded task (wrapper)', load: () => import('./commands/run.ts')},
	worktree: {
		summary: "list run worktrees, or remove a task's (refused while it holds work)",
		load: () => import('./commands/worktree.ts'),
	},
	sync: {
		summary: 'ship this ledger to a fleet ledger on PostgreSQL, carry out fleet requests',
		load: () => import('./commands/sync.ts'),
	},
	stop: {summary: 'stop a task: signal its process group, escalate, confirm', load: () => import('./commands/stop.ts')},
	jump: {summary: "take your tmux client to the pane a task's agent runs in", load: () => import('./commands/jump.ts')},
	stats: {summary: 'is the process working? verdicts, Needs you, handoffs, per week', load: () => import('./commands/stats.ts')},
	status: {
		summary: "one line for tmux's status line: needs you, decisions, running, stalled, lost, cost today",
		load: () => import('./commands/status.ts'),
	},
	otel: {
		summary: "OpenTelemetry: receive the agents' own telemetry, export the ledger as GenAI traces",
		load: () => import('./commands/otel.ts'),
	},
	reconcile: {summary: 'fold spool files, find lost and untracked agents', load: () => import('./commands/reconcile.ts')},
	ingest: {summary: 'fold hook payloads or spool envelopes into the ledger', load: () => import('./commands/ingest.ts')},
	rejects: {summary: 'list input the ledger refused, with line numbers and reasons', load: () => import('./commands/rejects.ts')},
	hook: {summary: 'record one agent lifecycle event from stdin (what the hooks run)', load: () => import('./commands/hook.ts')},
	'hold-hook': {
		summary: "a held run's PreToolUse hook: defer, carry an answer, pause on the budget (what run installs)",
		load: () => import('./commands/hold-hook.ts'),
	},
	contract: {
		summary: 'check a handoff contract in any shape, normalize it, make it ready, or write a template',
		load: () => import('./commands/contract.ts'),
	},
	take: {summary: 'claim a contract (exclusive; a 30-minute lease)', load: () => import('./commands/take.ts')},
	'handoff-hook': {
		summary: "Claude Code's SessionStart hook: the repository's latest handoff as context",
		load: () => import('./commands/handoff-hook.ts'),
	},
	handoff: {
		summary: 'write a handoff for a session that ended, into its repository',
		load: () => import('./commands/handoff.ts'),
	},
	progress: {summary: 'note progress on a claim and renew its lease', load: () => import('./commands/progress.ts')},
	'hand-in': {summary: 'hand in a claim with an evidence file', load: () => import('./commands/hand-in.ts')},
	'pass-back': {
		summary: 'free a claim, with the reason the next taker sees first',
		load: () => import('./commands/pass-back.ts'),
	},
	work: {summary: 'list claims: held, stalled, handed in, passed back', load: () => import('./commands/work.ts')},
	looked: {
		summary: "say you looked at a hand-in's screenshots (a UI line is accepted only after)",
		load: () => import('./commands/looked.ts'),
	},
	mcp: {summary: 'serve the claim verbs to agents over stdio (MCP)', load: () => import('./commands/mcp.ts')},
	serve: {
		summary: 'a remote MCP server (HTTP, OAuth) for connectors and scripts to write contracts',
		load: () => import('./commands/serve.ts'),
	},
	pickup: {
		summary: 'take ready contracts and run an agent on each under the wrapper',
		load: () => import('./commands/pickup.ts'),
	},
	mediate: {
		summary: 'settle a value disagreement between agents from their positions (deterministic)',
		load: () => import('./commands/mediate.ts'),
	},
	plan: {
		summary: 'plan review: an independent read-only reviewer, two rounds, then the disagreements lane',
		load: () => import('./commands/plan.ts'),
	},
	doctor: {
		summary: 'check the ledger, the spool, dropped events, permissions and the hooks',
		load: () => import('./commands/doctor.ts'),
	},
	hooks: {summary: 'install, remove or show the Claude Code and Codex hooks', load: () => import('./commands/hooks.ts')},
	review: {
		summary: 'review an ended task: packet, reviewers, one fix round (exit 0/2/1)',
		load: () => import('./commands/review.ts'),
	},
	'send-back': {
		summary: 'send work back with a reason: the worker runs again, or the claim is free',
		load: () => import('./commands/send-back.ts'),
	},
	accept: {summary: 'accept a hand-in that waits for its acceptor', load: () => import('./commands/accept.ts')},
	reactions: {
		summary: 'check the reaction rules, or run them once (--dry-run: what would fire)',
		load: () => import('./commands/reactions.ts'),
	},
	ci: {summary: "report a CI run's result for a task; the reaction rules run on it", load: () => import('./commands/ci.ts')},
	need: {summary: 'put a need of your own in the human queue', load: () => import('./commands/need.ts')},
	ack: {summary: "acknowledge a task's entry in the human queue", load: () => import('./commands/ack.ts')},
	'permission-hook': {
		summary: "Claude Code's PermissionRequest hook: the dialog's question to the board (installed by hooks install)",
		load: () => import('./commands/permission-hook.ts'),
	},
	'collision-hook': {
		summary: "Claude Code's PreToolUse hook for file writes: the second writer held (installed by hooks install)",
		load: () => import('./commands/collision-hook.ts'),
	},
	'message-hook': {
		summary: "the Stop hook that gives a running agent a person's messages (installed by hooks install)",
		load: () => import('./commands/message-hook.ts'),
	},
	send: {
		summary: 'a word to a running agent: given to it at its next turn boundary',
		load: () => import('./commands/send.ts'),
	},
	decide: {
		summary: "answer an agent's question (a permission prompt, a deferred call): allow or deny",
		load: () => import('./commands/decide.ts'),
	},
	gateway: {
		summary: "the effect gate: an MCP server that holds a work order's writes for approval",
		load: () => import('./commands/gateway.ts'),
	},
	effects: {
		summary: 'list, approve or send back held effects (effects list|approve|reject)',
		load: () => import('./commands/effects.ts'),
	},
	order: {
		summary: "derive a sub-agent's work order, without staged tools (order derive)",
		load: () => import('./commands/order.ts'),
	},
	workers: {
		summary: "each worker's track record: approvals, rework, failures, expiries, spend",
		load: () => import('./commands/workers.ts'),
	},
	web: {
		summary: 'the board in a browser, live, answered with a passkey; enroll passkeys (web enroll)',
		load: () => import('./commands/web.ts'),
	},
	config: {
		summary: 'show the config file, every setting and where its value came from (config show|path)',
		load: () => import('./commands/config.ts'),
	},
	completion: {
		summary: 'print a shell completion script (completion bash|zsh|fish)',
		// The table is handed over: the completion module does not import this one.
		load: async () => {
			const completion = await import('./commands/completion.ts');
			return {help: completion.help, run: argv => completion.run(argv, COMMANDS)};
		},
	},
};

const DEFAULT_COMMAND = 'board';
/** Commands that draw the board in the terminal. */
const INTERACTIVE_COMMANDS = new Set(['board', 'demo']);

/** What `controlroom --help` prints: every command with its summary, in its group (src/cli/help.ts). */
export function overview(): string {
	return renderOverview(Object.fromEntries(Object.entries(COMMANDS).map(([name, command]) => [name, command.summary])));
}

/** docs/cli.md, from every command's help (`controlroom help --markdown`). */
export async function reference(): Promise<string> {
	const entries = await Promise.all(
		Object.entries(COMMANDS).map(async ([name, command]) => ({
			name,
			summary: command.summary,
			help: (await command.load()).help,
		})),
	);
	return renderReference(overview(), entries);
}

/** Whether argv asks for help: `--help` or `-h` before any `--` (after it, the words are a child's). */
function asksForHelp(argv: readonly string[]): boolean {
	const end = argv.indexOf('--');
	return (end < 0 ? argv : argv.slice(0, end)).some(arg => arg === '--help' || arg === '-h');
}

function describeUnexpected(error: unknown): string {
	if (error instanceof LedgerFromFutureError) return error.message;
	const code = (error as {code?: unknown}).code;
	if (code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB') {
		return `the ledger file is damaged (${code}: ${(error as Error).message}); nothing more was written to it. controlroom doctor names the damage; keep a copy of the file before repairing it (docs/ledger.md)`;
	}
	if (typeof code === 'string' && code.startsWith('SQLITE_')) {
		return `ledger error (${code}): ${(error as Error).message}`;
	}
	return `unexpected error: ${error instanceof Error ? error.message : String(error)} (set CONTROLROOM_DEBUG=1 for the stack)`;
}

/**
 * A reader that went away (`controlroom doctor | head -3`) makes the next write fail with EPIPE,
 * which Node throws as an unhandled 'error' event: a stack trace. What was not read is simply not
 * read; the command carries on (a wrapper must still record its agent's exit) and ends as it would.
 */
/**
 * A reader that went away is not an error of ours: a closed pipe (EPIPE), or a terminal that was
 * closed under the board (EIO: the window closed, tmux killed). Either way the command goes on to
 * end as it would (the board and the demo get SIGHUP and stop their agents), writing nothing more.
 */
function ignoreClosedPipes(): void {
	for (const stream of [process.stdout, process.stderr]) {
		stream.on('error', (error: NodeJS.ErrnoException) => {
			if (error.code !== 'EPIPE' && error.code !== 'EIO') throw error;
		});
	}
}

/**
 * NO_COLOR (no-color.org: set and not empty) turns the board's colours off, as FORCE_COLOR=0 and
 * TERM=dumb already did: Ink's colour library decides its level once, when it loads, from
 * FORCE_COLOR, so FORCE_COLOR=0 is set while the board's module loads and taken back after, so it
 * reaches no agent the board starts. A FORCE_COLOR of the person's own wins (docs/board.md).
 */
async function withNoColorHonoured<T>(load: () => Promise<T>): Promise<T> {
	const env = process.env;
	if (!env['NO_COLOR'] || env['FORCE_COLOR'] !== undefined) return load();
	env['FORCE_COLOR'] = '0';
	try {
		return await load();
	} finally {
		delete env['FORCE_COLOR'];
	}
}

async function runCommand(name: string, argv: readonly string[]): Promise<number> {
	const command = COMMANDS[name];
	if (!command) {
		const near = nearestName(name, Object.keys(COMMANDS));
		process.stderr.write(
			`controlroom: unknown command '${terminalSafe(name)}'${near === null ? '' : ` (did you mean ${near}?)`} (controlroom --help lists the commands)\n`,
		);
		return USAGE_EXIT;
	}
	// Ink draws only a final frame when it believes it runs in CI (any CI variable set), and chalk
	// draws no colour when a CI key exists at all, whatever its value; a person at a terminal opening
	// the board must see it live and in colour, so a TTY wins over an inherited CI=true: the keys go.
	if (INTERACTIVE_COMMANDS.has(name) && process.stdout.isTTY) {
		for (const key of ['CI', 'CONTINUOUS_INTEGRATION']) Reflect.deleteProperty(process.env, key);
	}
	const module = INTERACTIVE_COMMANDS.has(name)
		? // Ink's layout engine reads its WebAssembly through `fetch` when there is one: 200 ms of the first frame.
			await withNoColorHonoured(() => loadWithGlobalsHidden(['fetch'], command.load))
		: await command.load();
	if (asksForHelp(argv)) {
		process.stdout.write(`${renderHelp(module.help)}\n`);
		return 0;
	}
	return module.run(argv);
}

/** Runs the command line; returns the exit code. Errors become one line on stderr, never a stack. */
export async function main(argv: readonly string[]): Promise<number> {
	ignoreClosedPipes();
	const [first, ...rest] = argv;
	try {
		if (first === '--help' || first === '-h' || (first === 'help' && rest.length === 0)) {
			process.stdout.write(`${overview()}\n`);
			return 0;
		}
		if (first === '--version' || first === '-v' || first === '-V' || first === 'version') {
			process.stdout.write(`${packageVersion()}\n`);
			return 0;
		}
		if (first === 'help' && rest[0] === '--markdown' && rest.length === 1) {
			process.stdout.write(await reference());
			return 0;
		}
		if (first === 'help') return await runCommand(rest[0] ?? '', ['--help']);
		const isFlag = first === undefined || first.startsWith('-');
		return await runCommand(isFlag ? DEFAULT_COMMAND : first, isFlag ? argv : rest);
	} catch (error) {
		if (process.env['CONTROLROOM_DEBUG'] && error instanceof Error) process.stderr.write(`${error.stack}\n`);
		if (error instanceof CliError) {
			process.stderr.write(`controlroom: ${terminalSafe(error.message)}\n`);
			return error.exitCode;
		}
		// TASK named several tasks, wherever it was looked up: the command line names no one task.
		if (error instanceof AmbiguousTaskError) {
			process.stderr.write(`controlroom: ${terminalSafe(error.message)}\n`);
			return USAGE_EXIT;
		}
		// Whichever gate refused an agent's yes, it is one line and one exit status (docs/security.md).
		if (error instanceof NotAPersonError) {
			process.stderr.write(`controlroom: ${terminalSafe(error.message)}\n`);
			return NOT_A_PERSON_EXIT;
		}
		process.stderr.write(`controlroom: ${terminalSafe(describeUnexpected(error))}\n`);
		return 1;
	}
}
