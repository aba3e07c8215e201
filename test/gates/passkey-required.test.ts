import {spawnSync} from 'node:child_process';
import {existsSync, readFileSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {AGENT_ENV_MARKERS} from '../../src/core/actor.ts';
import {argsHash} from '../../src/core/decisions/args-hash.ts';
import {EventType} from '../../src/core/events.ts';
import {PasskeyRequiredError} from '../../src/core/passkey/required-error.ts';
import {askDecision, answerDecision, decideFromBoard, openDecisions, takeAnswer} from '../../src/gates/decisions.ts';
import {
	answerOptions,
	localRelyingParty,
	registrationOptions,
	verifyAnswer,
	verifyRecordedAnswer,
	verifyRegistration,
	type AnswerRequest,
} from '../../src/gates/passkey/index.ts';
import {requirePerson, type YesVerb} from '../../src/gates/person-gate.ts';
import {openLedger, type Ledger} from '../../src/ledger/open-ledger.ts';
import {BIN, runCli, scratchDir} from '../helpers/cli.ts';
import {event, freshLedgerFile} from '../helpers/ledger.ts';
import {runAsPerson} from '../helpers/person.ts';
import {SoftAuthenticator} from '../helpers/soft-authenticator.ts';
import {onFileChange, waitFor} from '../helpers/wait-for.ts';

// `"approvals": "passkey"` (docs/passkeys.md, "Passkeys required"): every gate verb refuses an
// answer that is not passkey-signed, a person's at a terminal and the bypasses of docs/security.md
// (a detached tmux) alike; the policy is the ledger's once seen, so deleting the config key does
// not turn it off; replayed answers and answers for other arguments are refused; nothing runs.

const RP = localRelyingParty(8431);
const ORIGIN = 'http://localhost:8431';
const ARGS = {command: 'rm -rf build', description: 'Remove build'};
const TASK = 'c-0123456789ab';
const quote = (word: string): string => `'${word.replace(/'/g, `'\\''`)}'`;

const sockets: string[] = [];
afterAll(() => {
	for (const socket of sockets) spawnSync('tmux', ['-L', socket, 'kill-server']);
});

type Setup = {dir: string; ledger: string; id: string; key: SoftAuthenticator; env: NodeJS.ProcessEnv; config: string};

async function setup(): Promise<Setup> {
	const dir = scratchDir('cr-passkey-required-');
	const ledger = freshLedgerFile(dir);
	const key = new SoftAuthenticator();
	const open = openLedger(ledger);
	try {
		open.writer.append([event(TASK, EventType.registered, {title: 'a held claude -p run', agent: 'claude'}, Date.now())]);
		const {pending, options} = await registrationOptions(open, RP, {name: 'laptop', user: 'alice'});
		await verifyRegistration(open, RP, pending, key.register(options, {origin: ORIGIN}), {by: 'alice'});
		const {decisionId} = askDecision(open, {
			taskId: TASK,
			kind: 'permission',
			agent: 'claude',
			tool: 'Bash',
			args: ARGS,
			cwd: dir,
			expiresAt: null,
			toolUseId: 'toolu_1',
			session: 's-1',
			waiter: null,
			budget: null,
			source: 'claude',
		});
		const config = join(dir, 'config.json');
		writeFileSync(config, '{"approvals": "passkey"}\n');
		return {dir, ledger, id: decisionId, key, env: {CONTROLROOM_HOME: dir, CONTROLROOM_CONFIG: config}, config};
	} finally {
		open.close();
	}
}

function withLedger<T>(file: string, read: (ledger: Ledger) => T): T {
	const ledger = openLedger(file);
	try {
		return read(ledger);
	} finally {
		ledger.close();
	}
}

const refusedLine = (id: string) =>
	new RegExp(
		`^controlroom: decide ${id}: refused: approvals: passkey is on and this answer is not passkey-signed; answer it with your passkey at \`controlroom web\`, then /decision/${id}\\n$`,
	);

/** `controlroom decide ID allow` in a detached tmux session on a socket of its own: a terminal nothing links to its asker. */
async function decideInTmux(s: Setup): Promise<{status: string; output: string}> {
	const socket = `i40p-${process.pid}-${sockets.length}`;
	sockets.push(socket);
	const status = join(s.dir, 'tmux.status');
	const clean = `env ${AGENT_ENV_MARKERS.map(name => `-u ${name}`).join(' ')} CONTROLROOM_CONFIG=${quote(s.config)} CONTROLROOM_HOME=${quote(s.dir)}`;
	const decide = `${clean} ${quote(process.execPath)} ${quote(BIN)} decide ${s.id} allow --ledger ${quote(s.ledger)}`;
	const started = spawnSync('tmux', [
		'-L',
		socket,
		'new-session',
		'-d',
		`${decide} > ${quote(`${status}.out`)} 2>&1; echo $? > ${quote(status)}`,
	]);
	expect(started.status, started.stderr.toString()).toBe(0);
	const code = await waitFor(
		() => (existsSync(status) && readFileSync(status, 'utf8').endsWith('\n') ? readFileSync(status, 'utf8').trim() : null),
		{
			what: 'decide in the detached tmux session to finish',
			on: [onFileChange(status)],
			timeoutMs: 20_000,
		},
	);
	return {status: code, output: readFileSync(`${status}.out`, 'utf8')};
}

describe('approvals: passkey', () => {
	it('refuses decide at a pty and through tmux new-session, keeps the policy when the key is deleted, and nothing runs', async () => {
		const s = await setup();
		const atPty = runAsPerson(['decide', s.id, 'allow', '--ledger', s.ledger], {env: s.env});
		expect(atPty.stderr).toMatch(refusedLine(s.id));
		expect(atPty.status).toBe(77);
		const viaTmux = await decideInTmux(s);
		expect(viaTmux.output).toMatch(refusedLine(s.id));
		expect(viaTmux.status).toBe('77');
		// The key deleted from the config file: the ledger keeps the policy.
		writeFileSync(s.config, '{}\n');
		const afterDelete = runAsPerson(['decide', s.id, 'allow', '--ledger', s.ledger], {env: s.env});
		expect(afterDelete.stderr).toMatch(refusedLine(s.id));
		expect(afterDelete.status).toBe(77);
		withLedger(s.ledger, ledger => {
			expect(ledger.reader.eventsOfType([EventType.approvalsSet]).map(event => event.data.policy)).toEqual(['passkey']);
			const refused = ledger.reader.eventsOfType([EventType.gateRefused]);
			expect(refused.map(event => [event.data.verb, event.data.reason])).toEqual([
				['decide', 'not passkey-signed (approvals: passkey)'],
				['decide', 'not passkey-signed (approvals: passkey)'],
				['decide', 'not passkey-signed (approvals: passkey)'],
			]);
			// Nothing ran: no answer, nothing used, the question still open.
			expect(ledger.reader.eventsOfType([EventType.decisionAnswered, EventType.decisionUsed])).toEqual([]);
			expect(openDecisions(ledger).map(decision => decision.id)).toEqual([s.id]);
		});
	}, 60_000);

	it('every gate verb and the board key refuse an unsigned answer; a replay and an answer for other arguments are refused; a signed one is carried out once and checks from the ledger alone', async () => {
		const s = await setup();
		runAsPerson(['decide', s.id, 'allow', '--ledger', s.ledger], {env: s.env});
		const ledger = openLedger(s.ledger);
		try {
			const verbs: YesVerb[] = ['effects approve', 'effects reject', 'accept', 'ack', 'send-back', 'review', 'decide'];
			for (const verb of verbs) {
				expect(() => requirePerson(ledger, {verb, target: 'x-1', source: 'cli'})).toThrow(PasskeyRequiredError);
			}
			const board = await decideFromBoard(ledger, s.id, 'allow', null);
			expect(board).toEqual({
				isAnswered: false,
				message: expect.stringMatching(/^decide d-\w+: refused: approvals: passkey is on /),
			});
			const request: AnswerRequest = {item: {kind: 'decision', id: s.id}, digest: argsHash(ARGS), answer: 'allow'};
			const made = await answerOptions(ledger, RP, request);
			const posted = {signed: made.signed, response: s.key.assert(made.options, {origin: ORIGIN})};
			const other = await answerOptions(ledger, RP, {...request, digest: argsHash({command: 'ls'})});
			const forOther = await verifyAnswer(ledger, RP, {
				signed: other.signed,
				response: s.key.assert(other.options, {origin: ORIGIN}),
			});
			expect(() => answerDecision(ledger, s.id, 'allow', null, null, {source: 'web', passkey: forOther})).toThrow(
				/^refused: it was signed for other arguments/,
			);
			expect(ledger.reader.eventsOfType([EventType.decisionAnswered])).toEqual([]);
			const proof = await verifyAnswer(ledger, RP, posted);
			expect(answerDecision(ledger, s.id, 'allow', null, null, {source: 'web', passkey: proof}).answer?.by).toBe(
				'passkey laptop',
			);
			await expect(verifyAnswer(ledger, RP, posted)).rejects.toThrow('refused: a replay: this signed answer was already used');
			expect(takeAnswer(ledger, s.id, argsHash(ARGS))).toMatchObject({answer: 'allow', by: 'passkey laptop'});
			expect(takeAnswer(ledger, s.id, argsHash(ARGS))).toBeNull();
			const [recorded, ...more] = ledger.reader.eventsOfType([EventType.passkeyAsserted]);
			expect(more).toEqual([]);
			expect(await verifyRecordedAnswer(recorded!)).toMatchObject({ok: true, name: 'laptop'});
		} finally {
			ledger.close();
		}
		const explained = runCli(['explain', TASK, '--ledger', s.ledger], {env: s.env});
		expect(explained.stdout).toMatch(
			new RegExp(
				`^answer   allow decision ${s.id}: approved by passkey "laptop" \\(credential ${s.key.id.slice(0, 12)}…, seq \\d+\\)$`,
				'm',
			),
		);
	}, 60_000);
});
