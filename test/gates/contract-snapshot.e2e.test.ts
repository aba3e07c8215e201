import {execFileSync} from 'node:child_process';
import {existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {fileURLToPath} from 'node:url';
import {describe, expect, it} from 'vitest';
import {EventType} from '../../src/core/events.ts';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {runCli, scratchDir} from '../helpers/cli.ts';
import {runAsPerson} from '../helpers/person.ts';
import {realClientScript, requireRealClients} from '../helpers/realclients.ts';

const VALID_TASK = fileURLToPath(new URL('../fixtures/contracts/valid-task.yaml', import.meta.url));

function git(dir: string, ...args: string[]): string {
	return execFileSync('git', ['-C', dir, '-c', 'user.email=test@example.com', '-c', 'user.name=test', ...args], {
		encoding: 'utf8',
	}).trim();
}

// What the worker cannot change: the real Claude Code, run with a contract, rewrites the contract's
// test_command through its Bash tool during its run. The review reads the contract as it was when
// the run started, says it changed, and never runs what the worker wrote there.
describe('the contract a run started with', {timeout: 120_000}, () => {
	it('is what review reads: a test_command the worker changed is reported and never run', () => {
		const work = scratchDir('cr-snapshot-');
		const project = join(work, 'project');
		mkdirSync(project);
		git(project, 'init', '-q');
		writeFileSync(
			join(project, 'package.json'),
			JSON.stringify({name: 'fixture', scripts: {test: 'echo the original tests ran'}}),
		);
		writeFileSync(join(project, 'Makefile'), 'check:\n\ttrue\n');
		git(project, 'add', '.');
		git(project, 'commit', '-qm', 'start');
		const contract = join(project, 'task.yaml');
		writeFileSync(contract, readFileSync(VALID_TASK, 'utf8').replace('BASE_REVISION', git(project, 'rev-parse', 'HEAD')));
		const pwned = join(work, 'PWNED');
		const script = join(work, 'script.json');
		writeFileSync(
			script,
			JSON.stringify([
				{
					tool: 'Bash',
					input: {
						command: `sed -i 's#test_command: npm test#test_command: touch ${pwned} \\&\\& npm test#' task.yaml && grep test_command task.yaml`,
						description: 'change the test command',
					},
				},
				{text: 'done'},
			]),
		);
		const home = join(work, 'cr');
		mkdirSync(home);
		const ledger = join(home, 'ledger.db');
		const env = {...requireRealClients(), CONTROLROOM_HOME: home, SCENARIO: 'script', SCRIPT_FILE: script};
		const run = runCli(
			[
				'run',
				'--ledger',
				ledger,
				'--cwd',
				project,
				'--contract',
				contract,
				'--',
				realClientScript('claude-offline.sh'),
				work,
				'-p',
				'{{contract}}',
				'--dangerously-skip-permissions',
			],
			{env},
		);
		expect(run.status, run.stderr).toBe(0);
		// The worker did change the file
		expect(readFileSync(contract, 'utf8')).toContain(`test_command: touch ${pwned} && npm test`);
		const open = openLedger(ledger);
		const [registered] = open.reader.eventsOfType([EventType.registered]);
		open.close();
		const taskId = registered?.taskId ?? '';
		expect(registered?.data.contractText).toContain('test_command: npm test\n');
		expect(registered?.data.contractDigest).toMatch(/^[0-9a-f]{64}$/);

		// When a person reviews the run
		const review = runAsPerson(['review', taskId, '--reviewer', 'cat >/dev/null; echo APPROVE', '--ledger', ledger], {env});
		expect(review.status, review.stderr).toBe(0);

		// Then it says the contract changed since the run started, ran the test command it started with, and not the new one
		expect(review.stderr).toMatch(
			/review r-\w+: the contract .*task\.yaml changed since the run started \(sha256 \w{12} then, \w{12} now\): read as it was then, nothing in the file now is run/,
		);
		expect(existsSync(pwned)).toBe(false);
		const reviewed = openLedger(ledger);
		try {
			const [started] = reviewed.reader.eventsOfType([EventType.reviewStarted]);
			expect(started?.data.contractChanged).toContain('changed since the run started');
			const [packet] = reviewed.reader.eventsOfType([EventType.reviewPacketBuilt]);
			const text = readFileSync(packet?.data.path ?? '', 'utf8');
			// The tests the packet holds are the contract's as it started (its diff shows the worker's edit to the file)
			const tests = text.slice(text.indexOf('## Test output'), text.indexOf('## Diff'));
			expect(tests).toContain('(npm test: exit 0');
			expect(tests).toContain('the original tests ran');
			expect(tests).not.toContain('touch');
			expect(text).toContain('Note: the contract');
			// The packet lists the contract's acceptance lines, numbered as accept and send-back --line name them
			expect(text).toContain(
				'## Acceptance lines\n1. `npm test -- export` passes, with a new test for the filtered export\n2. `make check` exits 0\n',
			);
		} finally {
			reviewed.close();
		}
	});
});
