import {spawnSync} from 'node:child_process';
import {writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {nearestName} from '../../src/core/did-you-mean.ts';
import {runCli, scratchDir} from '../helpers/cli.ts';
import {freshLedgerFile} from '../helpers/ledger.ts';
import {onOutput, waitFor} from '../helpers/wait-for.ts';
import {killQuietly, sandbox, startCli} from '../producers/helpers.ts';

const pids: (number | undefined)[] = [];
afterEach(() => {
	for (const pid of pids.splice(0)) killQuietly(pid);
});

describe('CLI habits', () => {
	it('prints the version for -v, -V and --version', () => {
		for (const flag of ['-v', '-V', '--version']) expect(runCli([flag]).stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
	});

	it('suggests the nearest command and flag for a typo, and nothing for a word that is near none', () => {
		const command = runCli(['snapshto']);
		expect(command.status).toBe(64);
		expect(command.stderr).toBe(
			"controlroom: unknown command 'snapshto' (did you mean snapshot?) (controlroom --help lists the commands)\n",
		);
		const flag = runCli(['snapshot', '--jsno']);
		expect(flag.status).toBe(64);
		expect(flag.stderr).toContain('unknown option --jsno (did you mean --json?)');
		expect(runCli(['xyzzy']).stderr).not.toContain('did you mean');
		expect(nearestName('stpo', ['stop', 'sync', 'snapshot'])).toBe('stop');
		expect(nearestName('snap', ['stop', 'sync', 'snapshot'])).toBe('snapshot');
		expect(nearestName('qq', ['stop', 'sync'])).toBeNull();
	});

	it('completes commands, verbs and flags in a real bash', () => {
		const script = join(scratchDir(), 'controlroom.bash');
		const printed = runCli(['completion', 'bash']);
		expect(printed.status).toBe(0);
		writeFileSync(script, printed.stdout);
		const complete = (...words: string[]): string[] => {
			const run = spawnSync(
				'bash',
				[
					'-c',
					`source ${JSON.stringify(script)}; COMP_WORDS=(${words.map(word => JSON.stringify(word)).join(' ')}); COMP_CWORD=${words.length - 1}; _controlroom; printf '%s\\n' "\${COMPREPLY[@]}"`,
				],
				{encoding: 'utf8'},
			);
			expect(run.stderr).toBe('');
			return run.stdout.split('\n').filter(line => line !== '');
		};
		expect(complete('controlroom', 'sn')).toEqual(['snapshot']);
		expect(complete('controlroom', 'effects', '')).toEqual(expect.arrayContaining(['list', 'approve', 'reject']));
		expect(complete('controlroom', 'snapshot', '--f')).toEqual(['--fail-on']);
		expect(complete('controlroom', 'board', '--no-')).toEqual(['--no-bell', '--no-mouse', '--no-notify']);
	});

	it('prints zsh and fish scripts made from the same table, and refuses another shell', () => {
		const zsh = runCli(['completion', 'zsh']).stdout;
		expect(zsh.startsWith('#compdef controlroom\n')).toBe(true);
		expect(zsh).toContain("'snapshot:print the board once (text or --json), for CI'");
		expect(zsh).toContain(
			'[[ $PREFIX == -* ]] && { compadd -- --json --fail-on --since --all --at --as --stall --ledger --help; return; };',
		);
		const fish = runCli(['completion', 'fish']).stdout;
		expect(fish).toContain("complete -c controlroom -f -n '__fish_seen_subcommand_from effects' -a approve");
		expect(fish).toContain("complete -c controlroom -n '__fish_seen_subcommand_from snapshot' -l fail-on");
		const wrong = runCli(['completion', 'tcsh']);
		expect(wrong.status).toBe(64);
		expect(wrong.stderr).toBe("controlroom: completion: expected one shell, bash, zsh or fish, got 'tcsh'\n");
	});

	it('exits 130 on Ctrl-C in reconcile, as every long-running command does, after the pass under way', async () => {
		const box = sandbox();
		// reconcile works on a ledger that exists (only run and ingest make one, docs/cli.md)
		const ledgerFile = freshLedgerFile(box.home);
		const reconciler = startCli(['reconcile', '--interval', '0.05', '--ledger', ledgerFile], {
			...box.env,
			CONTROLROOM_AGENT_NAMES: 'cr-no-such-agent',
		});
		pids.push(reconciler.child.pid);
		await waitFor(() => /^reconciled: /m.test(reconciler.stdout()), {
			what: 'a first pass',
			timeoutMs: 20_000,
			on: [onOutput(reconciler.child.stdout)],
		});
		reconciler.child.kill('SIGINT');
		expect(await reconciler.done).toEqual({code: 130, signal: null});
		expect(reconciler.stderr()).toBe('');
	});
});
