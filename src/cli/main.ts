import {LedgerFromFutureError} from '../ledger/migrations.ts';
import {CliError, USAGE_EXIT} from './errors.ts';

/** A command module: its usage text and its entry, which returns the exit code. */
type CommandModule = {readonly usage: string; run(argv: readonly string[]): Promise<number>};

/** Every verb, loaded only when used so one command never pays for another's imports. */
const COMMANDS: Record<string, {readonly summary: string; readonly load: () => Promise<CommandModule>}> = {
	board: {summary: 'open the board (the default): lanes, Needs you, keys to act', load: () => import('./commands/board.ts')},
	ingest: {summary: 'fold hook payloads or spool envelopes into the ledger', load: () => import('./commands/ingest.ts')},
	snapshot: {summary: 'print the board once (text or --json), for CI', load: () => import('./commands/snapshot.ts')},
	timeline: {summary: "print one task's timeline", load: () => import('./commands/timeline.ts')},
	demo: {summary: 'show the board on a scratch ledger of simulated agents', load: () => import('./commands/demo.ts')},
	run: {summary: 'run an agent command as a recorded task (wrapper)', load: () => import('./commands/run.ts')},
	reconcile: {summary: 'fold spool files, find lost and untracked agents', load: () => import('./commands/reconcile.ts')},
	sync: {
		summary: 'ship this ledger to a fleet ledger on PostgreSQL, carry out fleet requests',
		load: () => import('./commands/sync.ts'),
	},
	stop: {summary: 'stop a task: signal its process group, escalate, confirm', load: () => import('./commands/stop.ts')},
	contract: {
		summary: 'check a handoff contract, or write a template (contract check|new)',
		load: () => import('./commands/contract.ts'),
	},
	take: {summary: 'claim a contract (exclusive; a 30-minute lease)', load: () => import('./commands/take.ts')},
	progress: {summary: 'note progress on a claim and renew its lease', load: () => import('./commands/progress.ts')},
	'hand-in': {summary: 'hand in a claim with an evidence file', load: () => import('./commands/hand-in.ts')},
	'pass-back': {
		summary: 'free a claim, with the reason the next taker sees first',
		load: () => import('./commands/pass-back.ts'),
	},
	work: {summary: 'list claims: held, stalled, handed in, passed back', load: () => import('./commands/work.ts')},
	mcp: {summary: 'serve the claim verbs to agents over stdio (MCP)', load: () => import('./commands/mcp.ts')},
	hooks: {summary: 'install, remove or show the Claude Code and Codex hooks', load: () => import('./commands/hooks.ts')},
};

const DEFAULT_COMMAND = 'board';
/** Commands that draw the board in the terminal. */
const INTERACTIVE_COMMANDS = new Set(['board', 'demo']);

function usage(): string {
	const width = Math.max(...Object.keys(COMMANDS).map(name => name.length));
	const lines = Object.entries(COMMANDS).map(([name, command]) => `  ${name.padEnd(width)}  ${command.summary}`);
	return [
		'usage: controlroom [COMMAND] [OPTIONS]',
		'',
		'commands:',
		...lines,
		'',
		'Every command takes --ledger PATH and --help.',
	].join('\n');
}

function describeUnexpected(error: unknown): string {
	if (error instanceof LedgerFromFutureError) return error.message;
	const code = (error as {code?: unknown}).code;
	if (typeof code === 'string' && code.startsWith('SQLITE_')) {
		return `ledger error (${code}): ${(error as Error).message}`;
	}
	return `unexpected error: ${error instanceof Error ? error.message : String(error)} (set CONTROLROOM_DEBUG=1 for the stack)`;
}

/** Runs the command line; returns the exit code. Errors become one line on stderr, never a stack. */
export async function main(argv: readonly string[]): Promise<number> {
	// React and Ink run their slow development builds unless told otherwise; the board is a product.
	process.env['NODE_ENV'] ??= 'production';
	const [first, ...rest] = argv;
	if (first === '--help' || first === '-h' || first === 'help') {
		process.stdout.write(`${usage()}\n`);
		return 0;
	}
	const isFlag = first === undefined || first.startsWith('-');
	const name = isFlag ? DEFAULT_COMMAND : first;
	const command = COMMANDS[name];
	if (!command) {
		process.stderr.write(`controlroom: unknown command '${name}'\n${usage()}\n`);
		return USAGE_EXIT;
	}
	try {
		// Ink draws only a final frame when it believes it runs in CI (any CI variable set); a person at
		// a terminal opening the board must see it live, so a TTY wins over an inherited CI=true.
		if (INTERACTIVE_COMMANDS.has(name) && process.stdout.isTTY) {
			for (const key of ['CI', 'CONTINUOUS_INTEGRATION']) if (process.env[key] !== undefined) process.env[key] = '0';
		}
		const module = await command.load();
		return await module.run(isFlag ? argv : rest);
	} catch (error) {
		if (process.env['CONTROLROOM_DEBUG'] && error instanceof Error) process.stderr.write(`${error.stack}\n`);
		if (error instanceof CliError) {
			process.stderr.write(`controlroom: ${error.message}\n`);
			return error.exitCode;
		}
		process.stderr.write(`controlroom: ${describeUnexpected(error)}\n`);
		return 1;
	}
}
