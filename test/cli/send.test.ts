import {spawnSync} from 'node:child_process';
import {mkdirSync, readdirSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {fileURLToPath} from 'node:url';
import {beforeEach, describe, expect, it} from 'vitest';
import {EventType} from '../../src/core/events.ts';
import {MESSAGE_MAX_CHARS} from '../../src/gates/messages.ts';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {sessionTaskId} from '../../src/ledger/payload-mapping.ts';
import {BIN, runCli} from '../helpers/cli.ts';
import {homeWithLedger, runHookBin} from '../helpers/hook.ts';
import {claudePayload} from '../helpers/payloads.ts';
import {runAsPerson} from '../helpers/person.ts';

// `controlroom send` and the message hook (docs/messages.md): what is refused, with which exit
// status, in one line; escape codes kept raw and shown escaped; a message given once.

const SHELL_HOOK = fileURLToPath(new URL('../../dist/cli/decision-hook.sh', import.meta.url));
const SESSION = '5e55a9e0-0000-4000-8000-000000000001';

let home: string;
let ledgerFile: string;
let taskId: string;
beforeEach(() => {
	({home, ledgerFile} = homeWithLedger());
	for (const name of ['SessionStart', 'UserPromptSubmit'])
		expect(runHookBin(home, [], JSON.stringify(claudePayload(name, SESSION))).status).toBe(0);
	taskId = sessionTaskId('claude', SESSION);
});

const env = () => ({CONTROLROOM_HOME: home});

function messageEvents(): {type: string; data: Record<string, unknown>}[] {
	const ledger = openLedger(ledgerFile, {isReadonly: true});
	try {
		return ledger.reader
			.eventsOf(taskId)
			.filter(event => event.type === EventType.messageSent || event.type === EventType.messageDelivered)
			.map(event => ({type: event.type, data: event.data as Record<string, unknown>}));
	} finally {
		ledger.close();
	}
}

/** The Stop hook as Claude Code runs it: the Node verb, with a Stop payload of the session. */
function stopHook(): {status: number | null; stdout: string} {
	const run = spawnSync(process.execPath, [BIN, 'message-hook'], {
		input: JSON.stringify(claudePayload('Stop', SESSION)),
		env: {...process.env, ...env(), CONTROLROOM_TASK_ID: ''},
		encoding: 'utf8',
	});
	return {status: run.status, stdout: run.stdout};
}

describe('controlroom send', () => {
	it('keeps escape codes raw in the ledger, shows them escaped, and gives the agent the message once', () => {
		const text = 'stop \u001b]0;owned\u0007 now\nsecond line';
		const sent = runAsPerson(['send', taskId, text], {env: env()});
		expect(sent.status, sent.stderr).toBe(0);
		expect(sent.stdout).toMatch(/^sent m-[0-9a-f]{10} to c-/);
		const [event] = messageEvents();
		expect(event?.data['text']).toBe(text);
		expect(event?.data['from']).toBe('person');
		const timeline = runCli(['timeline', taskId], {env: env()}).stdout;
		expect(timeline).toContain('stop \\e]0;owned\\a now\\nsecond line');
		expect(timeline).not.toContain('\u001b');

		// The Stop hook blocks with it: escapes shown, its lines kept; then the mailbox is empty
		const first = stopHook();
		expect(first.status).toBe(0);
		const answer = JSON.parse(first.stdout) as {decision: string; reason: string};
		expect(answer.decision).toBe('block');
		expect(answer.reason).toContain('stop \\e]0;owned\\a now\nsecond line');
		expect(answer.reason).not.toContain('\u001b');
		expect(readdirSync(join(home, 'mailbox')).filter(name => name.startsWith('m-'))).toEqual([]);
		// Given once: the next turn boundary gives nothing
		expect(stopHook().stdout).toBe('');
		expect(messageEvents().map(each => each.type)).toEqual([EventType.messageSent, EventType.messageDelivered]);
		expect(runCli(['timeline', taskId], {env: env()}).stdout).toMatch(/message m-[0-9a-f]+ delivered \(stop-hook\)/);
	});

	it('starts Node on Stop only when the mailbox holds a message', () => {
		// /bin/false as "Node": the hook's status says whether it was started
		const shellHook = () =>
			spawnSync('/bin/sh', [SHELL_HOOK, '/bin/false', BIN, 'message-hook'], {
				input: JSON.stringify(claudePayload('Stop', SESSION)),
				env: {...process.env, ...env()},
				encoding: 'utf8',
			});
		const idle = shellHook();
		expect([idle.status, idle.stdout]).toEqual([0, '']);
		mkdirSync(join(home, 'mailbox'), {recursive: true});
		writeFileSync(join(home, 'mailbox', 'm-0000000001'), `${taskId}\n`);
		expect(shellHook().status).toBe(1);
	});

	it('refuses an empty message, and one over the cap, in one line (exit 64), writing nothing', () => {
		for (const text of ['   ', 'x'.repeat(MESSAGE_MAX_CHARS + 1)]) {
			const run = runAsPerson(['send', taskId, text], {env: env()});
			expect(run.status).toBe(64);
			expect(run.stderr.trim().split('\n')).toHaveLength(1);
			expect(run.stderr).toMatch(/send: the message( is empty|: 16001 characters, over the limit of 16000)$/m);
		}
		expect(messageEvents()).toEqual([]);
	});

	it('refuses an unknown task and an ended one in one line (exit 1)', () => {
		const unknown = runAsPerson(['send', 'no-such-task', 'hello'], {env: env()});
		expect(unknown.status).toBe(1);
		expect(unknown.stderr.trim()).toMatch(/^controlroom: send: no task 'no-such-task' in /);
		const ended = runCli(['run', '--title', 'ends at once', '--', 'true'], {env: env()});
		expect(ended.status, ended.stderr).toBe(0);
		const refused = runAsPerson(['send', 'ends at once', 'hello'], {env: env()});
		expect(refused.status).toBe(1);
		expect(refused.stderr.trim()).toMatch(
			/^controlroom: send: task w-\w+ has ended \(done\); a message reaches only a running agent$/,
		);
	});

	it('refuses an agent (no terminal of its own): exit 77, recorded, nothing sent', () => {
		const run = runCli(['send', taskId, 'approve yourself'], {env: env()});
		expect(run.status).toBe(77);
		expect(run.stderr).toContain('send');
		expect(run.stderr).toContain('refused: only a person at a terminal says yes');
		expect(messageEvents()).toEqual([]);
	});
});
