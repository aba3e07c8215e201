import {spawn, spawnSync, type ChildProcess} from 'node:child_process';
import {readFileSync} from 'node:fs';
import {join} from 'node:path';
import {BIN, scratchDir, type CliResult} from './cli.ts';
import {onFileChange, waitFor, type Wakeup} from './wait-for.ts';

// Only a person at a terminal says yes (docs/security.md): a test's approve, accept, ack,
// send-back or review must come from a real terminal, as a person's would. This is the one way the
// tests do it: script(1) gives the command a pty of its own (its controlling terminal, its stdin,
// and the command in its foreground), the way a shell in a terminal runs it. The board's keys come
// from tmux (test/helpers/tmux.ts), which is a real terminal too.

/** Quotes one word for sh. */
function quote(word: string): string {
	return `'${word.replace(/'/g, `'\\''`)}'`;
}

type PersonOptions = {readonly env?: NodeJS.ProcessEnv; readonly cwd?: string};

/** The sh command script(1) runs: controlroom on the pty as stdin, stdout and stderr to files (kept apart). */
function personCommand(args: readonly string[], dir: string): string {
	const words = [process.execPath, BIN, ...args].map(quote).join(' ');
	return `echo $$ > ${quote(join(dir, 'pid'))}; exec ${words} > ${quote(join(dir, 'out'))} 2> ${quote(join(dir, 'err'))}`;
}

function resultOf(dir: string, status: number | null): CliResult {
	const read = (name: string) => {
		try {
			return readFileSync(join(dir, name), 'utf8');
		} catch {
			return '';
		}
	};
	return {status, stdout: read('out'), stderr: read('err')};
}

function environment(options: PersonOptions): NodeJS.ProcessEnv {
	return {...process.env, CONTROLROOM_HOME: scratchDir('cr-home-'), ...options.env};
}

/** Runs `controlroom ARGS` as a person at a terminal, to completion (an isolated CONTROLROOM_HOME unless one is given). */
export function runAsPerson(args: readonly string[], options: PersonOptions = {}): CliResult {
	const dir = scratchDir('cr-person-');
	const run = spawnSync('script', ['-qec', personCommand(args, dir), '/dev/null'], {
		env: environment(options),
		cwd: options.cwd,
		stdio: 'ignore',
	});
	if (run.error) throw run.error;
	return resultOf(dir, run.status);
}

/** A person's command still running: its script(1) process, controlroom's own PID once known, and how it ends. */
export type PersonRun = {
	readonly child: ChildProcess;
	/** controlroom's PID (the shell inside the pty execs it). */
	pid(): Promise<number>;
	/** What it wrote to stderr so far, and a wakeup for each write (for waitFor). */
	stderr(): string;
	readonly onStderr: Wakeup;
	/** What it wrote to stdout so far, and a wakeup for each write. */
	stdout(): string;
	readonly onStdout: Wakeup;
	readonly done: Promise<CliResult>;
};

/** Starts `controlroom ARGS` as a person at a terminal, in the background. */
export function spawnAsPerson(args: readonly string[], options: PersonOptions = {}): PersonRun {
	const dir = scratchDir('cr-person-');
	const child = spawn('script', ['-qec', personCommand(args, dir), '/dev/null'], {
		env: environment(options),
		cwd: options.cwd,
		stdio: 'ignore',
	});
	const done = new Promise<CliResult>((resolve, reject) => {
		child.once('error', reject);
		child.once('exit', code => resolve(resultOf(dir, code)));
	});
	const pid = () => waitFor(() => readPid(dir), {what: "the person's command to start", on: [onFileChange(join(dir, 'pid'))]});
	return {
		child,
		pid,
		stderr: () => resultOf(dir, null).stderr,
		onStderr: onFileChange(join(dir, 'err')),
		stdout: () => resultOf(dir, null).stdout,
		onStdout: onFileChange(join(dir, 'out')),
		done,
	};
}

function readPid(dir: string): number | null {
	try {
		const pid = Number(readFileSync(join(dir, 'pid'), 'utf8').trim());
		return Number.isInteger(pid) && pid > 0 ? pid : null;
	} catch {
		return null;
	}
}
