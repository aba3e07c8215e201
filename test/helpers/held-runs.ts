import {spawn, type ChildProcess} from 'node:child_process';
import {mkdirSync, readFileSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {BIN} from './cli.ts';
import {realClientScript, type RealClientBox} from './realclients.ts';
import {onExit, onOutput, waitFor} from './wait-for.ts';

// Wrapped `claude -p` runs held by the hold policy (docs/headless-holds.md), for the tests that
// drive the real Claude Code offline: start one, read the question it waits on, read what its
// model was sent.

const CLAUDE = realClientScript('claude-offline.sh');

/** The model's call every held test makes: the built-in policy holds it. */
export const RM_BUILD = {tool: 'Bash', input: {command: 'rm -rf build', description: 'Remove build'}};

/** The prompt of every held run: a script file can give these runs their own turns under it. */
export const HELD_PROMPT = 'clean the build';

export type Wrapped = {readonly child: ChildProcess; stderr(): string; stdout(): string; readonly done: Promise<number | null>};

/** What a held run is given: its turns (or a script file already written), flags, extra claude args, its folder. */
export type HeldRunOptions = {
	readonly flags?: readonly string[];
	readonly extra?: readonly string[];
	/** The agent's WORKDIR (claude-offline.sh's first argument); the box's folder by default. */
	readonly dir?: string;
	/** The Node the wrapper runs on (process.execPath by default). */
	readonly node?: string;
	/** A SCRIPT_FILE to use instead of writing `turns` to the box's turns.json. */
	readonly scriptFile?: string;
};

/**
 * Starts `controlroom run --agent claude [FLAGS] -- claude-offline.sh W -p PROMPT --output-format json`
 * in the background, in a project holding `build/f` and `keep.txt`. Each started child is pushed
 * on `started`, so a failing test can end the wrappers that wait for a person.
 */
export function startHeld(
	box: RealClientBox,
	turns: readonly unknown[],
	started: ChildProcess[],
	options: HeldRunOptions = {},
): Wrapped {
	const dir = options.dir ?? box.dir;
	const script = options.scriptFile ?? join(box.dir, 'turns.json');
	if (options.scriptFile === undefined) writeFileSync(script, JSON.stringify(turns));
	mkdirSync(join(dir, 'project', 'build'), {recursive: true});
	writeFileSync(join(dir, 'project', 'build', 'f'), 'x');
	writeFileSync(join(dir, 'project', 'keep.txt'), 'x');
	const child = spawn(
		options.node ?? process.execPath,
		[
			BIN,
			'run',
			'--agent',
			'claude',
			...(options.flags ?? []),
			'--',
			CLAUDE,
			dir,
			'-p',
			HELD_PROMPT,
			'--output-format',
			'json',
			...(options.extra ?? []),
		],
		{env: {...box.env, SCRIPT_FILE: script}, stdio: ['ignore', 'pipe', 'pipe']},
	);
	started.push(child);
	let stderr = '';
	let stdout = '';
	child.stderr?.on('data', chunk => (stderr += String(chunk)));
	child.stdout?.on('data', chunk => (stdout += String(chunk)));
	const done = new Promise<number | null>(resolve => child.once('exit', code => resolve(code)));
	return {child, stderr: () => stderr, stdout: () => stdout, done};
}

/** Ends the wrappers a test started that still run (SIGTERM: they record themselves stopped). */
export function endStarted(started: ChildProcess[]): void {
	for (const child of started.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
}

/** The question the wrapper says it waits on (its stderr names the id), the n-th one. */
export async function question(run: Wrapped, nth = 1): Promise<string> {
	return waitFor(() => [...run.stderr().matchAll(/controlroom decide (d-[0-9a-f]{12})/g)][nth - 1]?.[1], {
		what: `the run to wait for question ${nth}`,
		timeoutMs: 60_000,
		on: [onOutput(run.child.stderr), onExit(run.child)],
		explain: run.stderr,
	});
}

/** The task a run's wrapper named when it said it waits. */
export function taskOf(run: Wrapped): string | undefined {
	return /task (w-[0-9a-f]+) waits for you/.exec(run.stderr())?.[1];
}

/** The tool results the model was sent (the fake server's request log in WORKDIR). */
export function toolResults(dir: string): string[] {
	const log = readFileSync(join(dir, 'fake-anthropic.jsonl'), 'utf8');
	return [...log.matchAll(/"type":"tool_result"[^}]*?"content":"((?:[^"\\]|\\.)*)"/g)].map(match => JSON.parse(`"${match[1]}"`));
}
