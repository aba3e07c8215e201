import {chmodSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {writeContract} from '../../src/handoff/intake.ts';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {chatTask} from '../helpers/chat-contracts.ts';
import {BIN} from '../helpers/cli.ts';
import {makeContractRepo} from '../helpers/contract-repo.ts';
import {runAsPerson} from '../helpers/person.ts';
import {realClientBox, realClientScript} from '../helpers/realclients.ts';

// Send-back line by line, with the real Claude Code, offline (docs/contracts.md, "Accepting"): lee
// says line 1 is met and sends the hand-in back with line 2 unmet; the next pickup's run is the
// next attempt, and the first request Claude sends its model carries line 2 and its reason, never
// line 1.

type Snapshot = {
	tasks: {id: string; title: string; source: string; role: string | null; status: string; endReason: string | null}[];
	queue: {lanes: {name: string; items: {taskId: string; reason: string}[]}[]};
	contracts: {id: string; state: string; holder: string | null; waitingFor: string | null; writer: {client: string}}[];
};

type Request = {url: string; body?: {messages?: {role: string; content: string | {type: string; text?: string}[]}[]}};

function firstUserText(request: Request): string {
	const first = request.body?.messages?.[0];
	if (first === undefined) return '';
	return typeof first.content === 'string' ? first.content : first.content.map(part => part.text ?? '').join('\n');
}

function pickup(box: ReturnType<typeof realClientBox>, repo: {dir: string}, script: string, shims: string) {
	return box.cli(
		[
			'pickup',
			'--agent',
			'claude',
			'--once',
			'--as',
			'worker-9',
			'--repo',
			`shop=${repo.dir}`,
			'--',
			realClientScript('claude-offline.sh'),
			box.dir,
			'-p',
			'{{contract}}',
			'--dangerously-skip-permissions',
		],
		{SCENARIO: 'script', SCRIPT_FILE: script, PATH: `${shims}:${process.env['PATH'] ?? ''}`},
	);
}

function requestsOf(dir: string): Request[] {
	return readFileSync(join(dir, 'fake-anthropic.jsonl'), 'utf8')
		.trim()
		.split('\n')
		.map(line => JSON.parse(line) as Request)
		.filter(request => request.url.startsWith('/v1/messages'));
}

describe('send-back --line to a real Claude', {timeout: 180_000}, () => {
	it("the next attempt's first turn holds the unmet line and its reason, and not the met line", async () => {
		const box = realClientBox();
		mkdirSync(box.env['CONTROLROOM_HOME'] ?? '', {recursive: true});
		const repo = makeContractRepo();
		const ledgerFile = join(box.env['CONTROLROOM_HOME'] ?? '', 'ledger.db');
		const ledger = openLedger(ledgerFile);
		const line1 = 'the export query filters on status, with a test for status=open';
		const line2 = 'the CSV header keeps its old column order';
		const written = writeContract(ledger, {
			kind: 'task',
			text: chatTask(repo.head, {acceptance: [line1, line2]}),
			repository: null,
			writer: {client: 'Chat Assistant', owner: 'ana', via: 'serve', grant: 'g-test', host: null},
			repositories: new Map([['shop', repo.dir]]),
			readyAtOnce: null,
			origin: 'serve',
		});
		ledger.close();
		const claim = `claim-${written.id}-1`;
		expect(runAsPerson(['contract', 'ready', written.id, '--as', 'ana'], {env: box.env}).status).toBe(0);

		const shims = join(box.dir, 'bin');
		mkdirSync(shims);
		writeFileSync(join(shims, 'controlroom'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
		chmodSync(join(shims, 'controlroom'), 0o755);
		const evidence = [
			'before: {command: npm test, exit_code: 1, output: "exports closed orders", base_revision: abc1234}',
			'change: [{file: src/export.ts, reason: apply the status filter to the export query}]',
			'after: [{check: 1, command: npm test, exit_code: 0, output: "2 rows, both open"}, {check: 2, command: "head -1 out.csv", exit_code: 0, output: "status,id"}]',
			'uncertainty: []',
			'review: {commit: 9a8b7c6, acceptor: lee}',
		].join('\n');
		const handIn = join(box.dir, 'hand-in.json');
		writeFileSync(
			handIn,
			JSON.stringify([
				{
					tool: 'Bash',
					input: {
						command: `cat > evidence.yaml <<'EOF'\n${evidence}\nEOF\ncontrolroom hand-in ${claim} --evidence evidence.yaml`,
						description: 'hand in',
					},
				},
				{text: 'handed in'},
			]),
		);
		const first = pickup(box, repo, handIn, shims);
		expect(first.status, first.stderr).toBe(0);
		expect((box.snapshot() as unknown as Snapshot).tasks.find(task => task.id === claim)?.endReason).toBe(
			'handed in, waiting for lee',
		);

		// lee: line 1 met, line 2 not; the send-back carries line 2 alone
		const met = runAsPerson(['accept', claim, '--as', 'lee', '--line', '1', '--met'], {env: box.env});
		expect(met.stdout).toBe(`${claim} still open: waiting for lee: line 2\n`);
		const reason = 'the header now starts with status; keep id first';
		const back = runAsPerson(['send-back', claim, '--as', 'lee', '--line', '2', '--unmet', reason], {env: box.env});
		expect(back.status, back.stderr).toBe(0);

		const before = requestsOf(box.dir).length;
		const answer = join(box.dir, 'answer.json');
		writeFileSync(answer, JSON.stringify([{text: 'on it'}]));
		const second = pickup(box, repo, answer, shims);
		expect(second.status, second.stderr).toBe(0);
		expect(second.stdout).toContain(`as claim-${written.id}-2`);
		const next = requestsOf(box.dir)[before] as Request;
		const turn = firstUserText(next).replace(/\s+/g, ' ');
		expect(turn).toContain(
			`This contract came back from its last attempt: sent back by lee: acceptance line 2 is not met (${line2}): ${reason} (lee)`,
		);
		// Line 1 is in the contract the turn renders, but never as something that came back
		const cameBack = turn.slice(0, turn.indexOf('Fix what that names first.'));
		expect(cameBack).toContain(line2);
		expect(cameBack).not.toContain(line1);
		expect(cameBack).not.toContain('line 1');
	});
});
