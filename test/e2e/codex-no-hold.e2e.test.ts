import {spawnSync} from 'node:child_process';
import {existsSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {realClientBox, realClientScript} from '../helpers/realclients.ts';

// Why a headless Codex run is not held (docs/headless-holds.md, "Codex"), pinned against the real
// Codex 0.169 offline: `codex exec` asks no one. With approval_policy "on-request" a model's request
// to run outside the sandbox is refused by Codex itself, its JSON stream carries no approval event,
// and nothing ran: there is no question a person could answer, so controlroom holds none.

const CODEX = realClientScript('codex-offline.sh');

describe('codex exec 0.169 never asks for approval', () => {
	it('refuses an escalation itself under on-request: no approval event, the model told "approval policy is Never", nothing written', () => {
		const box = realClientBox({SCENARIO: 'cmd', ESCALATE: '1', CMD: 'touch ../outside.txt'});
		const run = spawnSync(
			CODEX,
			[
				box.dir,
				'exec',
				'--json',
				'--skip-git-repo-check',
				'-c',
				'approval_policy="on-request"',
				'-c',
				'sandbox_mode="workspace-write"',
				'write outside the folder',
			],
			{env: box.env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000},
		);
		expect(run.status, run.stderr).toBe(0);
		const events = run.stdout
			.split('\n')
			.filter(line => line.startsWith('{'))
			.map(line => JSON.parse(line) as {type: string; item?: {type?: string; text?: string}});
		expect(events.map(event => event.type)).toContain('turn.completed');
		expect(events.filter(event => /approv|request/i.test(`${event.type} ${event.item?.type ?? ''}`))).toEqual([]);
		const said = events.find(event => event.item?.type === 'agent_message')?.item?.text ?? '';
		expect(said).toContain('approval policy is Never');
		expect(existsSync(join(box.dir, 'outside.txt'))).toBe(false);
		// So the wrapper refuses to promise a pause it cannot give.
		const held = box.cli(['run', '--on-budget', 'ask', '--', 'codex', 'exec', 'hi']);
		expect(held.status).toBe(64);
		expect(held.stderr).toContain('only a Claude Code run can be paused');
	}, 180_000);
});
