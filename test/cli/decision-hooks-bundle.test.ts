import {spawnSync} from 'node:child_process';
import {copyFileSync, mkdirSync} from 'node:fs';
import {join} from 'node:path';
import {fileURLToPath} from 'node:url';
import {describe, expect, it} from 'vitest';
import {scratchDir} from '../helpers/cli.ts';

// The decision hooks' own bundle (docs/decisions.md, "What the hooks cost") when it cannot load (a
// broken install: better-sqlite3 built for another Node, a file missing): the hold hook must still
// never let a headless call through silently, and the permission hook must leave the dialog alone.

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const HEADLESS = {CLAUDE_CODE_ENTRYPOINT: 'sdk-cli', CLAUDE_CODE_SESSION_ATTENDED: '0', CONTROLROOM_TASK_ID: 'w-0123456789'};
const CALL = JSON.stringify({hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: {command: 'ls'}, tool_use_id: 't'});

/** An install whose bin and loader are there but whose bundle is not. */
function brokenInstall(): string {
	const root = scratchDir('cr-broken-hooks-');
	mkdirSync(join(root, 'bin'));
	mkdirSync(join(root, 'dist', 'cli'), {recursive: true});
	copyFileSync(join(ROOT, 'bin', 'controlroom'), join(root, 'bin', 'controlroom'));
	copyFileSync(join(ROOT, 'dist', 'cli', 'decision-hooks.js'), join(root, 'dist', 'cli', 'decision-hooks.js'));
	return join(root, 'bin', 'controlroom');
}

function hook(bin: string, words: readonly string[], input: string, env: NodeJS.ProcessEnv) {
	return spawnSync(process.execPath, [bin, ...words], {
		input,
		encoding: 'utf8',
		env: {...process.env, CONTROLROOM_HOME: scratchDir(), ...env},
	});
}

describe('the decision hooks with a bundle that cannot load', () => {
	it('the hold hook denies a headless call with the reason, and leaves an interactive one to the dialog; the permission hook prints nothing', () => {
		const bin = brokenInstall();
		const policy = Buffer.from('{}', 'utf8').toString('base64url');
		const headless = hook(bin, ['hold-hook', '--cwd', '/tmp', '--policy', policy], CALL, HEADLESS);
		expect(headless.status).toBe(0);
		expect(JSON.parse(headless.stdout)).toMatchObject({
			hookSpecificOutput: {hookEventName: 'PreToolUse', permissionDecision: 'deny'},
		});
		expect(JSON.parse(headless.stdout).hookSpecificOutput.permissionDecisionReason).toMatch(
			/^controlroom could not check this call against its hold policy \(cannot load the hook: .*\); not run$/,
		);
		expect(headless.stderr).toMatch(/^controlroom hold-hook: cannot load the hook \(/);
		const interactive = hook(bin, ['hold-hook', '--cwd', '/tmp', '--policy', policy], CALL, {
			CLAUDE_CODE_ENTRYPOINT: 'cli',
			CLAUDE_CODE_SESSION_ATTENDED: '1',
		});
		expect(interactive).toMatchObject({status: 0, stdout: ''});
		const permission = hook(bin, ['permission-hook'], '{}', {});
		expect(permission).toMatchObject({status: 0, stdout: ''});
		expect(permission.stderr).toMatch(/^controlroom permission-hook: cannot load the hook \(/);
	});
});
