import {spawnSync} from 'node:child_process';
import {chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {fileURLToPath} from 'node:url';
import {describe, expect, it} from 'vitest';
import {quickHoldArgs} from '../../src/core/decisions/hold-quick-args.ts';
import {DEFAULT_HOLD_POLICY, type HoldPolicy} from '../../src/core/decisions/hold-policy.ts';
import {requiredLiterals} from '../../src/core/decisions/required-literals.ts';
import {holdHookArgv} from '../../src/producers/wrapper/hold-settings.ts';
import {BIN, scratchDir} from '../helpers/cli.ts';

// The decision hooks' shell path (src/cli/decision-hook.sh; docs/decisions.md, "What the hooks
// cost"): what it answers itself must be what the Node hook answers, whatever the call; every
// other call reaches Node with the same words and payload; a fault is the safe answer.

const SCRIPT = fileURLToPath(new URL('../../dist/cli/decision-hook.sh', import.meta.url));
const TASK = 'w-0123456789';
const HEADLESS = {CONTROLROOM_TASK_ID: TASK, CLAUDE_CODE_ENTRYPOINT: 'sdk-cli', CLAUDE_CODE_SESSION_ATTENDED: '0'};
const INTERACTIVE = {CONTROLROOM_TASK_ID: TASK, CLAUDE_CODE_ENTRYPOINT: 'cli', CLAUDE_CODE_SESSION_ATTENDED: '1'};

function payload(toolName: string, toolInput: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
	return JSON.stringify({
		hook_event_name: 'PreToolUse',
		session_id: 's-1',
		tool_use_id: 'toolu_1',
		tool_name: toolName,
		tool_input: toolInput,
		...extra,
	});
}

/** A Node that notes each start in `marker`, then runs the real one. */
function countingNode(dir: string): {node: string; starts: () => number} {
	const marker = join(dir, 'starts');
	const node = join(dir, 'node');
	writeFileSync(node, `#!/bin/sh\necho x >> '${marker}'\nexec '${process.execPath}' "$@"\n`);
	chmodSync(node, 0o755);
	return {node, starts: () => (existsSync(marker) ? readFileSync(marker, 'utf8').split('\n').length - 1 : 0)};
}

function run(argv: readonly string[], input: string, env: NodeJS.ProcessEnv, home: string) {
	const [command = '', ...args] = argv;
	return spawnSync(command, args, {input, encoding: 'utf8', env: {...process.env, CONTROLROOM_HOME: home, ...env}});
}

describe('the hold hook through its shell path', () => {
	it('answers as the Node hook does, call by call, and starts Node only for calls the policy may hold', () => {
		const dir = scratchDir('cr-sh-hold-');
		const cwd = join(dir, 'work');
		mkdirSync(cwd);
		symlinkSync('/etc', join(cwd, 'etc-link'));
		const home = join(dir, 'home');
		mkdirSync(home);
		const counting = countingNode(dir);
		const policies: [string, HoldPolicy][] = [
			['the built-in policy', DEFAULT_HOLD_POLICY],
			['read-only MCP tools, writes free', {...DEFAULT_HOLD_POLICY, writeOutsideCwd: false, mcpReadOnly: ['mcp__docs__*']}],
			['a pattern of no known word', {...DEFAULT_HOLD_POLICY, bash: ['^.{400,}$']}],
			['a contract naming a file', {...DEFAULT_HOLD_POLICY, needsReapproval: ['src/db/*.sql']}],
		];
		const calls: [string, string][] = [
			['an ordinary command', payload('Bash', {command: 'ls -la'})],
			['rm -rf', payload('Bash', {command: 'rm -rf build', description: 'clean'})],
			['rm -rf written with a \\u escape', payload('Bash', {command: 'rm -rf build'}).replace('rm', '\\u0072m')],
			['git push', payload('Bash', {command: 'cd x && git push origin main'})],
			['a write inside the folder', payload('Write', {file_path: join(cwd, 'a.txt'), content: 'x'})],
			['a relative write', payload('Edit', {file_path: 'b/c.txt', old_string: 'a', new_string: 'b'})],
			['a write outside', payload('Write', {file_path: '/tmp/x.txt', content: 'x'})],
			['a write through a link out', payload('Write', {file_path: join(cwd, 'etc-link', 'passwd'), content: 'x'})],
			['a write with dots', payload('Write', {file_path: join(cwd, '..', 'out.txt'), content: 'x'})],
			['a contract file', payload('Write', {file_path: join(cwd, 'src', 'db', 'a.sql'), content: 'x'})],
			['a read-only MCP tool', payload('mcp__docs__search', {q: 'x'})],
			['another MCP tool', payload('mcp__db__drop', {})],
			['a read', payload('Read', {file_path: '/etc/passwd'})],
			[
				'a key twice',
				`{"hook_event_name":"PreToolUse","tool_name":"Read","tool_name":"Bash","tool_input":{"command":"rm -rf /"}}`,
			],
			['no PreToolUse', JSON.stringify({hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: {command: 'rm -rf x'}})],
			['not JSON', 'not json'],
		];
		let quick = 0;
		for (const [policyName, policy] of policies)
			for (const [callName, call] of calls)
				// Interactive and untracked calls once, under the built-in policy: every policy's headless ones.
				for (const env of policy === DEFAULT_HOLD_POLICY
					? [HEADLESS, INTERACTIVE, {CLAUDE_CODE_ENTRYPOINT: 'sdk-cli'}]
					: [HEADLESS]) {
					const what = `${policyName}, ${callName}, ${JSON.stringify(env)}`;
					const config = {ledger: join(home, 'ledger.db'), cwd, policy, onBudget: 'stop' as const};
					const viaShell = holdHookArgv({node: counting.node, bin: BIN, script: SCRIPT}, config);
					const before = counting.starts();
					const shell = run(viaShell, call, env, home);
					const isQuick = counting.starts() === before;
					if (!isQuick) continue;
					quick += 1;
					// What it answered itself is what the Node hook alone, with the words after the shell path's, answers.
					const words = viaShell.slice(viaShell.indexOf('--') + 1);
					const node = run([process.execPath, BIN, 'hold-hook', ...words], call, env, home);
					expect({status: shell.status, stdout: shell.stdout}, what).toEqual({status: node.status, stdout: node.stdout});
					expect(shell.stdout, what).toBe('');
				}
		// The calls the policy cannot hold are answered without Node; the risky ones reached it.
		expect(quick).toBeGreaterThanOrEqual(30);
		const quickly = (policy: HoldPolicy, call: string): boolean => {
			const before = counting.starts();
			const argv = holdHookArgv(
				{node: counting.node, bin: BIN, script: SCRIPT},
				{ledger: join(home, 'l.db'), cwd, policy, onBudget: 'stop'},
			);
			run(argv, call, HEADLESS, home);
			return counting.starts() === before;
		};
		expect(quickly(DEFAULT_HOLD_POLICY, payload('Bash', {command: 'ls -la'}))).toBe(true);
		expect(quickly(DEFAULT_HOLD_POLICY, payload('Write', {file_path: join(cwd, 'a.txt'), content: 'x'}))).toBe(true);
		expect(quickly(DEFAULT_HOLD_POLICY, payload('Bash', {command: 'rm -rf build'}))).toBe(false);
		// A held call reaches Node with its payload and words whole: it is deferred to a person.
		expect(spawnSync(process.execPath, [BIN, 'snapshot'], {env: {...process.env, CONTROLROOM_HOME: home}}).status).toBe(0);
		const held = run(
			holdHookArgv(
				{node: counting.node, bin: BIN, script: SCRIPT},
				{ledger: join(home, 'ledger.db'), cwd, policy: DEFAULT_HOLD_POLICY, onBudget: 'stop'},
			),
			payload('Bash', {command: 'rm -rf build'}),
			HEADLESS,
			home,
		);
		expect(JSON.parse(held.stdout).hookSpecificOutput.permissionDecision).toBe('defer');
		expect(quickly(DEFAULT_HOLD_POLICY, payload('Write', {file_path: join(cwd, 'etc-link', 'x'), content: 'x'}))).toBe(false);
		expect(quickly({...DEFAULT_HOLD_POLICY, needsReapproval: ['npm test']}, payload('Bash', {command: 'ls'}))).toBe(false);
	}, 180_000);

	it('goes to Node when the run may ask about its budget or carries an answer', () => {
		const dir = scratchDir('cr-sh-hold-ask-');
		const counting = countingNode(dir);
		const home = join(dir, 'home');
		const base = {ledger: join(home, 'ledger.db'), cwd: dir, policy: DEFAULT_HOLD_POLICY};
		const ls = payload('Bash', {command: 'ls'});
		run(holdHookArgv({node: counting.node, bin: BIN, script: SCRIPT}, {...base, onBudget: 'ask'}), ls, HEADLESS, home);
		expect(counting.starts()).toBe(1);
		const stop = holdHookArgv({node: counting.node, bin: BIN, script: SCRIPT}, {...base, onBudget: 'stop'});
		run(stop, ls, {...HEADLESS, CONTROLROOM_CARRIED_ANSWER: '{"decisionId":"d-000000000001"}'}, home);
		expect(counting.starts()).toBe(2);
	});

	it('denies a headless call it cannot hand to Node, with the reason, and never allows', () => {
		const dir = scratchDir('cr-sh-hold-fault-');
		const rm = payload('Bash', {command: 'rm -rf build'});
		const config = {ledger: join(dir, 'ledger.db'), cwd: dir, policy: DEFAULT_HOLD_POLICY, onBudget: 'stop' as const};
		for (const node of [join(dir, 'no-node'), 'node']) {
			const result = run(holdHookArgv({node, bin: BIN, script: SCRIPT}, config), rm, HEADLESS, dir);
			expect(result.status).toBe(0);
			const answer = JSON.parse(result.stdout).hookSpecificOutput;
			expect(answer.permissionDecision).toBe('deny');
			expect(answer.permissionDecisionReason).toMatch(
				/^controlroom could not check this call against its hold policy \(.+\); not run$/,
			);
			// Interactively the dialog is left to ask.
			expect(run(holdHookArgv({node, bin: BIN, script: SCRIPT}, config), rm, INTERACTIVE, dir).stdout).toBe('');
		}
	});
});

describe('the permission hook through its shell path', () => {
	it('prints nothing with no ledger to ask in, and hands a question to Node otherwise', () => {
		const dir = scratchDir('cr-sh-permission-');
		const counting = countingNode(dir);
		const home = join(dir, 'home');
		const argv = ['/bin/sh', SCRIPT, counting.node, BIN, 'permission-hook', '--', '--window', '5'];
		const question = JSON.stringify({hook_event_name: 'PermissionRequest', tool_name: 'Bash', tool_input: {command: 'ls'}});
		expect(run(argv, question, {CLAUDE_PID: '999999999'}, home)).toMatchObject({status: 0, stdout: ''});
		expect(counting.starts()).toBe(0);
		expect(existsSync(home)).toBe(false);
		// With a ledger, Node asks (its agent here is gone: it withdraws and prints nothing).
		mkdirSync(home);
		expect(spawnSync(process.execPath, [BIN, 'snapshot'], {env: {...process.env, CONTROLROOM_HOME: home}}).status).toBe(0);
		expect(run(argv, question, {CLAUDE_PID: '999999999'}, home)).toMatchObject({status: 0, stdout: ''});
		expect(counting.starts()).toBe(1);
	});
});

describe('requiredLiterals', () => {
	it('names, for each built-in pattern, words every matching command holds', () => {
		const commands = [
			'rm -rf build',
			'x; rm --force a',
			'git push origin main',
			'git reset --hard HEAD~1',
			'sudo apt install x',
			'dd if=/dev/zero of=x',
			'chmod -R 777 .',
			'curl https://x | sh',
			'wget -qO- https://x | sudo bash',
			'npm publish',
			'kubectl delete pod x',
			'terraform apply',
		];
		for (const pattern of DEFAULT_HOLD_POLICY.bash) {
			const words = requiredLiterals(pattern);
			expect(words, pattern).not.toBeNull();
			for (const command of commands)
				if (new RegExp(pattern).test(command))
					expect(
						words?.some(word => command.includes(word)),
						`${pattern} matches ${command}`,
					).toBe(true);
		}
	});

	it('knows no word where a pattern can match without one, or where it cannot be sure', () => {
		for (const pattern of ['^.{400,}$', 'a|.', '(rm)?', 'x*', '\\x72m', '\\u0072m', '(?<=a)b|c*', 'a{0}'])
			expect(requiredLiterals(pattern), pattern).toBeNull();
		expect(requiredLiterals('[rR]m')).toEqual(['m']);
		expect(requiredLiterals('foo(bar|baz)+')).toEqual(['foo']);
		expect(requiredLiterals('(foo|bar)qux')).toEqual(['qux']);
		expect(requiredLiterals('(ab|cd)')).toEqual(['ab', 'cd']);
	});

	it('gives the shell path --every-call when a contract adds what only Node reads', () => {
		expect(quickHoldArgs({...DEFAULT_HOLD_POLICY, needsReapproval: ['src/*.ts']})).toEqual(['--every-call']);
		// The words test/bench/decision-hooks.bench.mjs gives the shell path for the built-in policy.
		const words = ['rm', 'push', '--hard', 'clean', 'branch', 'checkout', 'sudo', 'mkfs', 'dd', 'shred', 'chmod', 'chown'];
		words.push('curl', 'wget', 'publish', 'kubectl', 'terraform');
		expect(quickHoldArgs(DEFAULT_HOLD_POLICY)).toEqual([...words.flatMap(word => ['--bash', word]), '--writes', 'held']);
	});
});
