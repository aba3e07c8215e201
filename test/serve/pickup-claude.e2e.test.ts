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

// pickup with the real Claude Code, offline: a contract written from afar and made ready by a
// person is taken, the first request Claude sends its model carries the contract's goal and its
// acceptance line, the run is a normal wrapped task, and the agent's own hand-in (through its Bash
// tool, as the holder) waits for the acceptor.

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

describe('pickup --agent claude', () => {
	it('takes a ready contract, gives Claude its goal and acceptance in the first turn, and its hand-in waits for the acceptor', async () => {
		const box = realClientBox();
		mkdirSync(box.env['CONTROLROOM_HOME'] ?? '', {recursive: true});
		const repo = makeContractRepo();
		const ledgerFile = join(box.env['CONTROLROOM_HOME'] ?? '', 'ledger.db');
		const ledger = openLedger(ledgerFile);
		const goal = 'The CSV export holds exactly the rows the status filter shows, closed orders never.';
		const acceptance = '`npm test` passes with a test that exports status=open and finds two rows';
		const written = writeContract(ledger, {
			kind: 'task',
			text: chatTask(repo.head, {goal, acceptance: [acceptance]}),
			repository: null,
			writer: {client: 'Chat Assistant', owner: 'ana', via: 'serve', grant: 'g-test', host: null},
			repositories: new Map([['shop', repo.dir]]),
			readyAtOnce: null,
			origin: 'serve',
		});
		ledger.close();
		const claim = `claim-${written.id}-1`;
		const ready = runAsPerson(['contract', 'ready', written.id, '--as', 'ana'], {env: box.env});
		expect(ready.status, ready.stderr).toBe(0);

		// controlroom on the PATH of Claude's Bash tool, and a script: write the evidence, hand in as the holder.
		const shims = join(box.dir, 'bin');
		mkdirSync(shims);
		writeFileSync(join(shims, 'controlroom'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
		chmodSync(join(shims, 'controlroom'), 0o755);
		const evidence = [
			'before: {command: npm test, exit_code: 1, output: "exports closed orders", base_revision: abc1234}',
			'change: [{file: src/export.ts, reason: apply the status filter to the export query}]',
			'after: [{check: 1, command: npm test, exit_code: 0, output: "2 rows, both open"}]',
			'uncertainty: []',
			'review: {commit: 9a8b7c6, acceptor: lee}',
		].join('\n');
		const script = join(box.dir, 'script.json');
		writeFileSync(
			script,
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
		const pickup = box.cli(
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
		expect(pickup.status, pickup.stderr).toBe(0);
		expect(pickup.stdout).toContain(`took ${written.id} "Keep the status filter in the CSV export" as ${claim}`);

		const requests = readFileSync(join(box.dir, 'fake-anthropic.jsonl'), 'utf8')
			.trim()
			.split('\n')
			.map(line => JSON.parse(line) as Request)
			.filter(request => request.url.startsWith('/v1/messages'));
		// The rendered YAML folds long lines: compare the words.
		const first = firstUserText(requests[0] as Request).replace(/\s+/g, ' ');
		expect(first).toContain(goal);
		expect(first).toContain(acceptance);
		expect(first).toContain(`Your claim is ${claim}`);

		const snapshot = box.snapshot() as unknown as Snapshot;
		const run = snapshot.tasks.find(
			task => task.source === 'wrapper' && task.title === 'Keep the status filter in the CSV export',
		);
		expect(run?.status).toBe('done');
		const claimTask = snapshot.tasks.find(task => task.id === claim);
		expect(claimTask).toMatchObject({role: 'claim', status: 'done', endReason: 'handed in, waiting for lee'});
		expect(claimTask?.title).toBe('Keep the status filter in the CSV export (from Chat Assistant for ana)');
		const waiting = snapshot.queue.lanes.find(lane => lane.name === 'waiting')?.items ?? [];
		expect(waiting).toContainEqual(expect.objectContaining({taskId: claim, reason: 'hand-in waits for lee'}));
		expect(snapshot.contracts.find(contract => contract.id === written.id)).toMatchObject({
			state: 'handed in',
			holder: 'worker-9',
			waitingFor: 'lee',
			writer: {client: 'Chat Assistant'},
		});
	});
});
