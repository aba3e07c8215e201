import {spawnSync} from 'node:child_process';
import {describe, expect, it} from 'vitest';
import {scratchDir} from '../helpers/cli.ts';
import {realClientScript, requireRealClients} from '../helpers/realclients.ts';

// The other real-agent tests stand on this harness: if the CLIs or the fake servers break, this
// says so first and plainly.
describe('the real agent harness', () => {
	it('runs the real claude -p offline against the fake Anthropic server', () => {
		const env = {...process.env, ...requireRealClients(), SCENARIO: 'text'};
		const run = spawnSync(realClientScript('claude-offline.sh'), [scratchDir('cr-rc-'), '-p', 'say hi'], {env, encoding: 'utf8'});
		expect(run.status, run.stderr).toBe(0);
		expect(run.stdout.trim().length).toBeGreaterThan(0);
	});

	it('runs the real codex exec offline against the fake OpenAI server', () => {
		const env = {...process.env, ...requireRealClients(), SCENARIO: 'text'};
		const run = spawnSync(
			realClientScript('codex-offline.sh'),
			[scratchDir('cr-rc-'), 'exec', '--json', '--skip-git-repo-check', 'say hi'],
			{env, encoding: 'utf8'},
		);
		expect(run.status, run.stderr).toBe(0);
		expect(run.stdout).toContain('"type":"turn.completed"');
	});
});
