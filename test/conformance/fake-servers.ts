import {spawn, type ChildProcess} from 'node:child_process';
import {mkdtempSync, readFileSync, renameSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {realClientScript} from '../helpers/realclients.ts';
import {onFileChange, waitFor} from '../helpers/wait-for.ts';

/** One model turn of the fake Anthropic server's script (test/fixtures/realclients/README.md). */
export type Turn = {
	readonly tool?: string;
	readonly input?: Record<string, unknown>;
	readonly text?: string;
	readonly delay_ms?: number;
	readonly usage?: Record<string, number>;
};

/**
 * The fake model servers one conformance file shares among its rows, started once: the harness's
 * own fake-anthropic.mjs in its `script` scenario, whose script file holds every row's turns keyed
 * by a marker (a conversation whose first user message holds the marker takes those turns, so each
 * row puts its marker in its prompt, and in a helper's prompt the helper's own); a second one
 * answering every request with HTTP 500; and fake-openai.mjs servers per scenario, started when a
 * row first asks. Each listens on loopback, and is ended by its PID when the file is done.
 */
export class FakeServers {
	private readonly dir = mkdtempSync(join(tmpdir(), 'cr-fakes-'));
	private readonly scriptFile = join(this.dir, 'script.json');
	private readonly turns: Record<string, readonly Turn[]> = {};
	private readonly children: ChildProcess[] = [];
	private readonly ports = new Map<string, Promise<number>>();

	constructor() {
		this.writeScript();
	}

	/** Adds a conversation's turns under `marker` (unique in the file): a prompt holding the marker takes them. */
	script(marker: string, turns: readonly Turn[]): void {
		// A prompt takes the turns of the first marker it holds: no marker may hold another.
		const clash = Object.keys(this.turns).find(other => other.includes(marker) || marker.includes(other));
		if (clash !== undefined) throw new Error(`marker ${marker} and ${clash}: one holds the other`);
		this.turns[marker] = turns;
		this.writeScript();
	}

	/** The port of the scripted Claude server. */
	anthropic(): Promise<number> {
		return this.server('anthropic', 'fake-anthropic.mjs', {SCENARIO: 'script', SCRIPT_FILE: this.scriptFile});
	}

	/** The port of a Claude server whose every answer is an HTTP `status` error. */
	anthropicError(status = 500): Promise<number> {
		return this.server(`anthropic-${status}`, 'fake-anthropic.mjs', {SCENARIO: 'error', ERROR_STATUS: String(status)});
	}

	/** The port of a Codex server in `scenario` (plan, text, fail, http500). */
	openai(scenario: string): Promise<number> {
		return this.server(`openai-${scenario}`, 'fake-openai.mjs', {SCENARIO: scenario});
	}

	/** Ends every server this file started, by its PID. */
	close(): void {
		for (const child of this.children) child.kill('SIGTERM');
	}

	private writeScript(): void {
		// Whole, then renamed: the server reads the file at each request and must never see half of it.
		const next = `${this.scriptFile}.${process.pid}.tmp`;
		writeFileSync(next, JSON.stringify({main: [{text: 'no row marker in this prompt'}], sub: this.turns}));
		renameSync(next, this.scriptFile);
	}

	private server(key: string, script: string, env: Record<string, string>): Promise<number> {
		let port = this.ports.get(key);
		if (!port) {
			port = this.start(key, script, env);
			this.ports.set(key, port);
		}
		return port;
	}

	private async start(key: string, script: string, env: Record<string, string>): Promise<number> {
		const portFile = join(this.dir, `${key}.port`);
		const child = spawn(process.execPath, [realClientScript(script)], {
			env: {...process.env, ...env, PORT_FILE: portFile, LOG: join(this.dir, `${key}.jsonl`), MAX_LIFETIME_S: '1800'},
			stdio: 'ignore',
		});
		this.children.push(child);
		const text = await waitFor(
			() => {
				try {
					return readFileSync(portFile, 'utf8').trim() || undefined;
				} catch {
					return undefined;
				}
			},
			{what: `the ${key} fake server's port`, on: [onFileChange(portFile)], timeoutMs: 20_000},
		);
		return Number(text);
	}
}
