import {spawn, type ChildProcess} from 'node:child_process';
import {fileURLToPath} from 'node:url';
import {onExit, onOutput, waitFor} from './wait-for.ts';

const CONTROLROOM_BIN = fileURLToPath(new URL('../../bin/controlroom', import.meta.url));

/** `controlroom otel receive --port 0` as a child, with the URL it printed. */
export type ReceiverChild = {readonly url: string; readonly child: ChildProcess; output(): string; stop(): Promise<void>};

export async function startOtelReceiver(env: NodeJS.ProcessEnv): Promise<ReceiverChild> {
	const child = spawn(process.execPath, [CONTROLROOM_BIN, 'otel', 'receive', '--port', '0'], {
		env,
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	let output = '';
	child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
	child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
	const url = await waitFor(() => /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1], {
		what: 'otel receive to listen',
		timeoutMs: 20_000,
		on: [onOutput(child.stdout), onOutput(child.stderr), onExit(child)],
		explain: () => output,
	});
	return {
		url,
		child,
		output: () => output,
		stop: async () => {
			if (child.exitCode !== null) return;
			const exited = new Promise(resolve => child.once('exit', resolve));
			child.kill('SIGTERM');
			await exited;
		},
	};
}

/**
 * `controlroom run --otel URL -- claude -p 'say hi'` as the offline Claude takes it (in `dir`), its
 * result as JSON on stdout when `isJson`: the wrapped run the telemetry tests make.
 */
export function otelClaudeRun(url: string, claude: string, dir: string, isJson: boolean): string[] {
	return [
		'run',
		'--otel',
		url,
		'--',
		claude,
		dir,
		'-p',
		'say hi',
		...(isJson ? ['--output-format', 'json'] : []),
		'--dangerously-skip-permissions',
	];
}
