import {spawnSync} from 'node:child_process';
import {mkdirSync, readdirSync, symlinkSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {EventType} from '../../src/core/events.ts';
import {SETTINGS} from '../../src/core/settings.ts';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {BIN, runCli, scratchDir} from '../helpers/cli.ts';
import {event} from '../helpers/ledger.ts';
import {Tmux} from '../helpers/tmux.ts';

const tmux = new Tmux();
afterEach(() => tmux.kill());

/** A controlroom home whose ledger holds a running task and an ended one, and `controlroom` on a PATH of its own. */
function box() {
	const root = scratchDir('cr-complete-');
	const home = join(root, 'home');
	const bin = join(root, 'bin');
	mkdirSync(home);
	mkdirSync(bin);
	symlinkSync(BIN, join(bin, 'controlroom'));
	const ledger = openLedger(join(home, 'ledger.db'));
	const now = Date.now();
	ledger.writer.append([
		event('w-ad3294', EventType.registered, {title: 'fix export', source: 'wrapper'}, now - 60_000),
		event('w-11b46e', EventType.registered, {title: 'fix import: the\tCSV side', source: 'wrapper'}, now - 50_000),
		event('w-11b46e', EventType.exited, {exitCode: 0}, now - 40_000),
	]);
	ledger.close();
	const script = join(root, 'controlroom.bash');
	writeFileSync(script, runCli(['completion', 'bash']).stdout);
	return {root, home, bin, script};
}

describe('completion offers the ledger, not only the command table', () => {
	it('controlroom stop <TAB> offers the ledger task ids with their titles, in bash on a terminal', async () => {
		const {home, bin, script} = box();
		tmux.start('sh', 120, 20, {CONTROLROOM_HOME: home, PATH: `${bin}:${process.env['PATH'] ?? ''}`, HOME: home});
		tmux.type('sh', `exec bash --norc --noprofile`);
		tmux.send('sh', 'Enter');
		tmux.type('sh', `PS1='bash> '; source '${script}'; clear`);
		tmux.send('sh', 'Enter');
		await tmux.waitFor('sh', pane => pane.startsWith('bash>') && !pane.includes('source'));
		// Two tasks: the first TAB puts their common start; then, as readline does, two more list them with their titles
		tmux.type('sh', 'controlroom stop ');
		tmux.send('sh', 'Tab');
		await tmux.waitFor('sh', pane => pane.includes('controlroom stop w-'));
		tmux.send('sh', 'Tab', 'Tab');
		const {pane} = await tmux.waitFor(
			'sh',
			text => text.includes('w-ad3294  fix export') && text.includes('w-11b46e  fix import'),
		);
		// A title's tab is a space in the list: one task, one entry
		expect(pane).toContain('w-11b46e  fix import: the CSV side');
		// One match is its id alone, ready to run
		tmux.type('sh', 'a');
		tmux.send('sh', 'Tab');
		await tmux.waitFor('sh', text => /controlroom stop w-ad3294 *$/m.test(text));
	});

	it("offers --fail-on's lanes, config show's keys, a flag's spelled values and --task's tasks (bash)", () => {
		const {home, bin, script} = box();
		const complete = (...words: string[]): string[] => {
			const run = spawnSync(
				'bash',
				[
					'-c',
					`source ${JSON.stringify(script)}; COMP_WORDS=(${words.map(word => JSON.stringify(word)).join(' ')}); COMP_CWORD=${words.length - 1}; _controlroom; printf '%s\\n' "\${COMPREPLY[@]}"`,
				],
				{encoding: 'utf8', env: {...process.env, CONTROLROOM_HOME: home, PATH: `${bin}:${process.env['PATH'] ?? ''}`}},
			);
			return run.stdout.split('\n').filter(line => line !== '');
		};
		expect(complete('controlroom', 'snapshot', '--fail-on', '')).toEqual([
			'needs-you',
			'lost',
			'stalled',
			'failed',
			'reviews',
			'decisions',
		]);
		expect(complete('controlroom', 'snapshot', '--json', '--fail-on', 'st')).toEqual(['stalled']);
		expect(complete('controlroom', 'config', 'show', '')).toEqual(Object.keys(SETTINGS));
		expect(complete('controlroom', 'config', 'show', 'stall')).toEqual(['stallSeconds']);
		expect(complete('controlroom', 'run', '--on-budget', '')).toEqual(['stop', 'ask']);
		expect(complete('controlroom', 'need', 'text', '--task', 'w-ad')).toEqual(['w-ad3294']);
		expect(complete('controlroom', 'run', '--resume', '')).toEqual([
			'w-ad3294  fix export',
			'w-11b46e  fix import: the CSV side',
		]);
		// A flag's value is not the positional: after --grace 5 the TASK is still offered
		expect(complete('controlroom', 'stop', '--grace', '5', 'w-1')).toEqual(['w-11b46e']);
		// A second positional is not a TASK
		expect(complete('controlroom', 'progress', 'w-ad3294', 'note')).toEqual([]);
	});

	it('completion --tasks prints id TAB title, running first, and never creates a ledger', () => {
		const {root, home} = box();
		const listed = runCli(['completion', '--tasks'], {env: {CONTROLROOM_HOME: home}});
		expect(listed).toEqual({status: 0, stdout: 'w-ad3294\tfix export\nw-11b46e\tfix import: the CSV side\n', stderr: ''});
		const empty = join(root, 'empty');
		mkdirSync(empty);
		expect(runCli(['completion', '--tasks'], {env: {CONTROLROOM_HOME: empty}})).toEqual({status: 0, stdout: '', stderr: ''});
		expect(runCli(['completion', '--tasks', '--ledger', join(empty, 'typo.db')])).toEqual({status: 0, stdout: '', stderr: ''});
		expect(readdirSync(empty)).toEqual([]);
	});

	it('zsh and fish offer the same: tasks with titles, lanes, keys', () => {
		const zsh = runCli(['completion', 'zsh']).stdout;
		expect(zsh).toContain('_controlroom_tasks() {');
		expect(zsh).toMatch(/^\t\tstop\) .*\(\( n == 0 \)\) && \{ _controlroom_tasks; return; \}/m);
		expect(zsh).toContain(
			'[[ $words[CURRENT-1] == --fail-on ]] && { compadd -- needs-you lost stalled failed reviews decisions; return; }',
		);
		expect(zsh).toContain(`[[ $words[3] == show ]] && { compadd -- ${Object.keys(SETTINGS).join(' ')}; return; }`);
		const fish = runCli(['completion', 'fish']).stdout;
		expect(fish).toContain(
			"complete -c controlroom -f -n '__fish_seen_subcommand_from stop' -a '(command controlroom completion --tasks 2>/dev/null)'",
		);
		expect(fish).toContain(
			"complete -c controlroom -n '__fish_seen_subcommand_from snapshot' -l fail-on -x -a 'needs-you lost stalled failed reviews decisions'",
		);
		expect(fish).toContain(
			`complete -c controlroom -f -n '__fish_seen_subcommand_from config; and __fish_seen_subcommand_from show' -a '${Object.keys(SETTINGS).join(' ')}'`,
		);
	});
});
