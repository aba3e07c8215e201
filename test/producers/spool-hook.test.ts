import {randomBytes} from 'node:crypto';
import {spawnSync} from 'node:child_process';
import {copyFileSync, readFileSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {fileURLToPath} from 'node:url';
import {describe, expect, it} from 'vitest';
import {sessionTaskId} from '../../src/ledger/payload-mapping.ts';
import {foldSpool} from '../../src/ledger/spool.ts';
import {runCli, scratchDir} from '../helpers/cli.ts';
import {fixture, homeWithLedger, spoolFiles, withLedger} from '../helpers/hook.ts';

/** The script `hooks install` puts in the agents' settings, run as they run it. */
const SPOOL_HOOK = fileURLToPath(new URL('../../dist/producers/spool-hook.sh', import.meta.url));
const SESSION_TASK = sessionTaskId('claude', 'bd6c0ffe-ec1a-4f46-b883-80987579e3e9');

function runSpoolHook(home: string, input: string | Buffer, env: NodeJS.ProcessEnv = {}) {
	const result = spawnSync('/bin/sh', [SPOOL_HOOK], {
		input,
		env: {PATH: process.env['PATH'], HOME: home, CONTROLROOM_HOME: home, ...env},
		maxBuffer: 1 << 20,
	});
	return {status: result.status, stdout: result.stdout, stderr: result.stderr.toString()};
}

/** The one spool file's header line, parsed. */
function spoolHeader(spool: string): Record<string, unknown> {
	const [file] = spoolFiles(spool);
	const text = readFileSync(join(spool, file ?? ''), 'utf8');
	return JSON.parse(text.slice(0, text.indexOf('\n'))) as Record<string, unknown>;
}

describe('the spool hook (sh, no Node start)', () => {
	it('writes a header with the agent, CLAUDE_PID, the wrapper task and its parent chain, then the payload as received', () => {
		const {home, ledgerFile, spool} = homeWithLedger();
		const payload = fixture('claude/SessionStart.json');
		const run = runSpoolHook(home, payload, {CLAUDE_PID: '4242', CONTROLROOM_TASK_ID: 'w-"odd"\\id'});
		expect(run).toEqual({status: 0, stdout: Buffer.alloc(0), stderr: ''});
		const [file] = spoolFiles(spool);
		const text = readFileSync(join(spool, file ?? ''), 'utf8');
		const newline = text.indexOf('\n');
		const header = JSON.parse(text.slice(0, newline)) as Record<string, unknown>;
		expect(header).toMatchObject({v: 1, source: 'claude', origin: 'stdin', pid: 4242, wrapperTaskId: 'w-"odd"\\id'});
		// Nearest first: the hook's parent is this test process.
		const ancestors = header['ancestors'] as {pid: number; startTime: number; name: string}[];
		expect(ancestors[0]?.pid).toBe(process.pid);
		const ownStat = readFileSync('/proc/self/stat', 'utf8');
		expect(ancestors[0]?.startTime).toBe(Number(ownStat.slice(ownStat.lastIndexOf(') ') + 2).split(' ')[19]));
		expect(ancestors.length).toBeGreaterThan(1);
		expect(ancestors.length).toBeLessThanOrEqual(4);
		expect(text.slice(newline + 1)).toBe(payload);
		// Folded, it means what the Node hook's event means: a wrapped session lives on the wrapper's task (docs/hooks.md)
		withLedger(ledgerFile, ledger => {
			expect(foldSpool(ledger, spool).appended).toBeGreaterThan(0);
			expect(ledger.reader.task('w-"odd"\\id')).toMatchObject({pid: 4242, sessionId: expect.any(String)});
			expect(ledger.reader.task(SESSION_TASK)).toBeUndefined();
		});
		expect(spoolFiles(spool)).toEqual([]);
	});

	it.each([
		{comm: 'a) R 7 8 9', why: 'a comm holding ") " and numbers, which shifts the fields read straight'},
		{comm: 'Web Content', why: 'a comm with a space'},
	])('reads the parent chain right through $why', ({comm}) => {
		const {home, spool} = homeWithLedger();
		const shell = join(scratchDir(), comm);
		copyFileSync('/bin/sh', shell);
		const run = spawnSync(shell, ['-c', `/bin/sh '${SPOOL_HOOK}'; exit 0`], {
			input: '{}',
			env: {PATH: process.env['PATH'], HOME: home, CONTROLROOM_HOME: home},
		});
		expect(run.status).toBe(0);
		const [first, second] = spoolHeader(spool)['ancestors'] as {pid: number; startTime: number; name: string}[];
		// The shell named `comm` is the hook's parent; this test process is the shell's parent.
		expect(first?.name).toBe(comm);
		expect(second?.pid).toBe(process.pid);
		const ownStat = readFileSync('/proc/self/stat', 'utf8');
		expect(second?.startTime).toBe(Number(ownStat.slice(ownStat.lastIndexOf(') ') + 2).split(' ')[19]));
	});

	it.each([
		{env: {}, why: 'the first process named like the agent'},
		{env: {CLAUDE_PID: 'self'}, why: 'the CLAUDE_PID process'},
	])('stops walking the parent chain at $why', ({env}) => {
		const {home, spool} = homeWithLedger();
		const agent = join(scratchDir(), 'claude');
		copyFileSync('/bin/sh', agent);
		// The agent-named shell runs the hook through a plain `sh -c`, as Claude Code does.
		const claudePid = 'CLAUDE_PID' in env ? {CLAUDE_PID: String(process.pid)} : {};
		const run = spawnSync(agent, ['-c', `/bin/sh -c "/bin/sh '${SPOOL_HOOK}'; exit 0"; exit 0`], {
			input: '{}',
			env: {PATH: process.env['PATH'], HOME: home, CONTROLROOM_HOME: home, ...claudePid},
		});
		expect(run.status).toBe(0);
		const ancestors = spoolHeader(spool)['ancestors'] as {pid: number; name: string}[];
		const names = ancestors.map(ancestor => ancestor.name);
		if ('CLAUDE_PID' in env) {
			// CLAUDE_PID names this test process: the walk goes past the agent-named shell up to it.
			expect(ancestors.at(-1)?.pid).toBe(process.pid);
			expect(names).toEqual(['sh', 'claude', expect.any(String)]);
		} else {
			expect(names).toEqual(['sh', 'claude']);
		}
	});

	it('`snapshot` right after a hook call includes it', () => {
		const {home} = homeWithLedger();
		expect(runSpoolHook(home, fixture('claude/SessionStart.json'), {CLAUDE_PID: '4242'}).status).toBe(0);
		const snapshot = runCli(['snapshot', '--json', '--all'], {env: {CONTROLROOM_HOME: home}});
		expect(snapshot.status).toBe(0);
		const tasks = (JSON.parse(snapshot.stdout) as {tasks: {id: string; pid: number | null}[]}).tasks;
		expect(tasks.find(task => task.id === SESSION_TASK)?.pid).toBe(4242);
	});

	it.each([
		{name: '10 MB payload', input: `{"session_id": "${'x'.repeat(10 * 1024 * 1024)}"}`, reason: /larger than 4194304 bytes/},
		{
			name: 'binary garbage',
			input: Buffer.concat([Buffer.from([0xff, 0x00, 0x0a]), randomBytes(64 * 1024)]),
			reason: /not valid JSON|UTF-8/,
		},
	])('$name: exit 0, empty stdout, and one reject after the fold, nothing else lost', ({input, reason}) => {
		const {home, ledgerFile, spool} = homeWithLedger();
		runSpoolHook(home, fixture('claude/SessionStart.json'));
		const run = runSpoolHook(home, input);
		expect(run.status).toBe(0);
		expect(run.stdout.length).toBe(0);
		withLedger(ledgerFile, ledger => {
			const stats = foldSpool(ledger, spool);
			expect(stats.rejected).toBe(1);
			const rejects = ledger.reader.rejects(10);
			expect(rejects).toHaveLength(1);
			expect(rejects[0]?.reason).toMatch(reason);
			expect(ledger.reader.task(SESSION_TASK)).toBeTruthy();
		});
		expect(spoolFiles(spool)).toEqual([]);
	});

	it('a missing spool folder is created', () => {
		const home = scratchDir('cr-spool-missing-');
		expect(runSpoolHook(home, fixture('claude/SessionStart.json'))).toEqual({status: 0, stdout: Buffer.alloc(0), stderr: ''});
		expect(spoolFiles(join(home, 'spool'))).toHaveLength(1);
	});

	it.each([
		{
			name: 'the spool path is a file',
			block: (home: string) => writeFileSync(join(home, 'spool'), 'not a folder'),
			home: (home: string) => home,
		},
		{
			name: 'the home is under a file',
			block: (home: string) => writeFileSync(join(home, 'blocker'), 'not a folder'),
			home: (home: string) => join(home, 'blocker', 'home'),
		},
	])('$name: exit 0 and empty stdout, and `hooks status` says the hook cannot write', ({block, home: homeOf}) => {
		const root = scratchDir('cr-spool-blocked-');
		block(root);
		const home = homeOf(root);
		expect(runSpoolHook(home, fixture('claude/SessionStart.json'))).toEqual({status: 0, stdout: Buffer.alloc(0), stderr: ''});
		const status = runCli(['hooks', 'status'], {env: {CONTROLROOM_HOME: home, HOME: root, CODEX_HOME: join(root, 'codex')}});
		expect(status.status).toBe(0);
		expect(status.stdout).toMatch(/^spool: the hook cannot write: .*(not a folder|ENOTDIR)/m);
	});

	it('`hooks status` shows the backlog and its oldest file', () => {
		const {home} = homeWithLedger();
		runSpoolHook(home, fixture('claude/SessionStart.json'));
		runSpoolHook(home, fixture('claude/Stop.json'));
		const status = runCli(['hooks', 'status'], {env: {CONTROLROOM_HOME: home, HOME: home, CODEX_HOME: join(home, 'codex')}});
		expect(status.stdout).toMatch(/^spool: .*: 2 files waiting \(\d+ KiB\), the oldest written .* ago/m);
		expect(status.stdout).toContain('spool: the hook can write there');
	});
});
