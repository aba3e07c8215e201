import {spawnSync} from 'node:child_process';
import {
	chmodSync,
	existsSync,
	lstatSync,
	mkdirSync,
	readdirSync,
	readFileSync,
	readlinkSync,
	statSync,
	symlinkSync,
	writeFileSync,
} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {CLAUDE_EVENTS, CODEX_EVENTS} from '../../src/producers/agent-hook/hooks-install.ts';
import {sessionTaskId} from '../../src/ledger/payload-mapping.ts';
import {foldSpool} from '../../src/ledger/spool.ts';
import {BIN, runCli, scratchDir} from '../helpers/cli.ts';
import {fixture, homeWithLedger, withLedger} from '../helpers/hook.ts';

const USERS_OWN = {
	model: 'opus',
	hooks: {
		PreToolUse: [{matcher: 'Bash', hooks: [{type: 'command', command: '~/bin/audit-bash.sh', timeout: 5}]}],
		Stop: [{hooks: [{type: 'command', command: 'say done'}]}],
	},
	permissions: {allow: ['Bash(npm test)']},
};

/** A temp HOME, CODEX_HOME and project, so no test ever touches the real ones. */
function sandbox() {
	const root = scratchDir('cr-install-');
	// CLAUDE_CONFIG_DIR empty: the default ~/.claude, whatever the machine running the tests has set.
	const env = {
		HOME: join(root, 'home'),
		CODEX_HOME: join(root, 'codex'),
		CONTROLROOM_HOME: join(root, 'state'),
		CLAUDE_CONFIG_DIR: '',
	};
	const project = join(root, 'project');
	mkdirSync(join(project, '.claude'), {recursive: true});
	mkdirSync(env.HOME, {recursive: true});
	return {env, project, settings: join(project, '.claude', 'settings.json')};
}

function hooksCli(args: readonly string[], env: NodeJS.ProcessEnv) {
	const result = runCli(['hooks', ...args], {env});
	expect(result.stderr).toBe('');
	expect(result.status).toBe(0);
	return result.stdout;
}

type Settings = {hooks: Record<string, {matcher?: string; hooks: {command: string}[]}[]>};

/** Our entries: the spool hook (the default) or the direct Node hook. */
/** Our lifecycle hook; the collision hook, a PreToolUse entry of its own, is checked apart. */
const isOurs = (command: string) => /spool-hook\.sh|controlroom/.test(command) && !command.endsWith(' collision-hook');
const isHandoffHook = (command: string) => /controlroom handoff-hook$/.test(command);
const SPOOL_COMMAND = /^\/bin\/sh \/\S+\/dist\/producers\/spool-hook\.sh$/;
const DIRECT_COMMAND = /^\/\S+node\S* \/\S+\/bin\/controlroom hook$/;

describe('controlroom hooks install --claude --project DIR', () => {
	it("keeps the user's own hooks, is idempotent, and uninstall restores the file", () => {
		// Given a project settings file with the user's own hooks
		const {env, project, settings} = sandbox();
		const original = `${JSON.stringify(USERS_OWN, null, 2)}\n`;
		writeFileSync(settings, original);
		// When installed once
		const first = hooksCli(['install', '--claude', '--project', project], env);
		const once = readFileSync(settings, 'utf8');
		// Then the user's hooks are still there, and ours is on every event
		expect(first).toContain('added hooks for SessionStart');
		const installed = JSON.parse(once) as Settings & typeof USERS_OWN;
		expect(installed.model).toBe('opus');
		expect(installed.permissions).toEqual(USERS_OWN.permissions);
		expect(installed.hooks.PreToolUse[0]).toEqual(USERS_OWN.hooks.PreToolUse[0]);
		expect(installed.hooks.Stop[0]).toEqual(USERS_OWN.hooks.Stop[0]);
		// The collision hook: one group of its own, for the file-writing tools only
		const collision = installed.hooks.PreToolUse.filter(group =>
			group.hooks.some(hook => hook.command.endsWith(' collision-hook')),
		);
		expect(collision).toEqual([
			{
				matcher: 'Edit|Write|MultiEdit|NotebookEdit',
				hooks: [{type: 'command', command: expect.stringMatching(/bin\/controlroom collision-hook$/), timeout: 10}],
			},
		]);
		for (const event of CLAUDE_EVENTS) {
			const ours = installed.hooks[event]
				?.flatMap(group => group.hooks)
				.filter(hook => isOurs(hook.command) && !isHandoffHook(hook.command));
			expect(ours, event).toHaveLength(1);
			expect(ours?.[0]?.command).toMatch(SPOOL_COMMAND);
		}
		// And SessionStart has the handoff hook beside it (docs/handoffs.md), once
		const handoff = installed.hooks['SessionStart']?.flatMap(group => group.hooks).filter(hook => isHandoffHook(hook.command));
		expect(handoff?.map(hook => [hook.command, (hook as {timeout?: number}).timeout])).toEqual([
			[expect.stringMatching(/controlroom handoff-hook$/), 15],
		]);
		// When installed twice: nothing changes
		const second = hooksCli(['install', '--claude', '--project', project], env);
		expect(second).toContain('already installed');
		expect(readFileSync(settings, 'utf8')).toBe(once);
		// When uninstalled: the file is what it was
		const removed = hooksCli(['uninstall', '--claude', '--project', project], env);
		expect(removed).toContain('removed hooks for');
		expect(readFileSync(settings, 'utf8')).toBe(original);
		// And the user's home was never written
		expect(existsSync(join(env.HOME, '.claude'))).toBe(false);
	});

	it('--direct installs the Node hook instead, and switching kinds replaces our entry in place', () => {
		const {env, project, settings} = sandbox();
		writeFileSync(settings, `${JSON.stringify(USERS_OWN, null, 2)}\n`);
		const commands = () =>
			CLAUDE_EVENTS.map(event =>
				(JSON.parse(readFileSync(settings, 'utf8')) as Settings).hooks[event]
					?.flatMap(group => group.hooks)
					.filter(hook => isOurs(hook.command) && !isHandoffHook(hook.command))
					.map(hook => hook.command),
			);
		hooksCli(['install', '--claude', '--project', project, '--direct'], env);
		for (const ours of commands()) expect(ours).toEqual([expect.stringMatching(DIRECT_COMMAND)]);
		expect(hooksCli(['install', '--claude', '--project', project], env)).toContain('added hooks for SessionStart');
		for (const ours of commands()) expect(ours).toEqual([expect.stringMatching(SPOOL_COMMAND)]);
		hooksCli(['uninstall', '--claude', '--project', project], env);
		expect(JSON.parse(readFileSync(settings, 'utf8'))).toEqual(USERS_OWN);
	});

	it('restores the hooks of a file it did not format itself (same JSON, any layout)', () => {
		const {env, project, settings} = sandbox();
		writeFileSync(settings, JSON.stringify(USERS_OWN));
		hooksCli(['install', '--claude', '--project', project], env);
		hooksCli(['uninstall', '--claude', '--project', project], env);
		expect(JSON.parse(readFileSync(settings, 'utf8'))).toEqual(USERS_OWN);
	});

	it('creates the settings file when there is none, and uninstall leaves no hooks key', () => {
		const {env, project, settings} = sandbox();
		hooksCli(['install', '--claude', '--project', project], env);
		const hooks = (JSON.parse(readFileSync(settings, 'utf8')) as Settings).hooks;
		expect(Object.keys(hooks)).toEqual([...CLAUDE_EVENTS, 'PermissionRequest']);
		// The PermissionRequest hook waits for the board, so its timeout is the window and a margin (docs/decisions.md)
		expect(hooks['PermissionRequest']?.[0]?.hooks).toEqual([
			{
				type: 'command',
				command: expect.stringMatching(/^'?\/bin\/sh'? \S*\/dist\/cli\/decision-hook\.sh'? .* permission-hook -- --window 600$/),
				timeout: 630,
			},
		]);
		hooksCli(['install', '--claude', '--project', project, '--decision-window', '120'], env);
		expect((JSON.parse(readFileSync(settings, 'utf8')) as Settings).hooks['PermissionRequest']?.[0]?.hooks).toEqual([
			{type: 'command', command: expect.stringMatching(/ permission-hook -- --window 120$/), timeout: 150},
		]);
		hooksCli(['uninstall', '--claude', '--project', project], env);
		expect(JSON.parse(readFileSync(settings, 'utf8'))).toEqual({});
	});

	it('refuses a settings file that is not JSON, naming it, and leaves it untouched', () => {
		const {env, project, settings} = sandbox();
		writeFileSync(settings, '{"hooks": ');
		const result = runCli(['hooks', 'install', '--claude', '--project', project], {env});
		expect(result.status).toBe(1);
		expect(result.stderr).toBe(`controlroom: hooks: ${settings}: not valid JSON; left untouched\n`);
		expect(readFileSync(settings, 'utf8')).toBe('{"hooks": ');
	});

	it.each([
		{kind: 'spool hook', flags: []},
		{kind: 'direct Node hook', flags: ['--direct']},
	])('the installed $kind works from any directory, and the next snapshot shows the session', ({flags}) => {
		const {env, project, settings} = sandbox();
		hooksCli(['install', '--claude', '--project', project, ...flags], env);
		const command = (JSON.parse(readFileSync(settings, 'utf8')) as Settings).hooks.SessionStart?.[0]?.hooks[0]?.command ?? '';
		const {home} = homeWithLedger();
		// Claude Code runs the command through a shell, in some other directory
		const result = spawnSync('/bin/sh', ['-c', command], {
			cwd: scratchDir('cr-elsewhere-'),
			input: fixture('claude/SessionStart.json'),
			env: {PATH: '/usr/bin:/bin', CONTROLROOM_HOME: home, CLAUDE_PID: '4242'},
		});
		expect(result.status).toBe(0);
		expect(result.stdout.length).toBe(0);
		expect(result.stderr.toString()).toBe('');
		const snapshot = runCli(['snapshot', '--json', '--all'], {env: {CONTROLROOM_HOME: home}});
		const tasks = (JSON.parse(snapshot.stdout) as {tasks: {id: string; pid: number | null}[]}).tasks;
		expect(tasks.find(task => task.id === sessionTaskId('claude', 'bd6c0ffe-ec1a-4f46-b883-80987579e3e9'))?.pid).toBe(4242);
	});
});

describe('controlroom hooks install --codex', () => {
	it("writes hooks.json beside the user's hooks and sets notify before the first table", () => {
		// Given a Codex home with the user's own hook and a config without notify
		const {env} = sandbox();
		mkdirSync(env.CODEX_HOME, {recursive: true});
		const usersHooks = {hooks: {Stop: [{hooks: [{type: 'command', command: 'notify-send codex'}]}]}};
		writeFileSync(join(env.CODEX_HOME, 'hooks.json'), `${JSON.stringify(usersHooks, null, 2)}\n`);
		const config = 'model = "gpt-5.1-codex"\napproval_policy = "never"\n\n[tui]\nnotifications = true\n';
		writeFileSync(join(env.CODEX_HOME, 'config.toml'), config);
		// When installed twice
		const output = hooksCli(['install', '--codex'], env);
		hooksCli(['install', '--codex'], env);
		// Then
		expect(output).toContain('added notify');
		const hooks = JSON.parse(readFileSync(join(env.CODEX_HOME, 'hooks.json'), 'utf8')) as Settings;
		expect(hooks.hooks.Stop?.[0]).toEqual(usersHooks.hooks.Stop[0]);
		for (const event of CODEX_EVENTS) {
			const ours = hooks.hooks[event]?.flatMap(group => group.hooks).filter(hook => isOurs(hook.command));
			expect(
				ours?.map(hook => hook.command.endsWith('spool-hook.sh --agent codex')),
				event,
			).toEqual([true]);
		}
		const toml = readFileSync(join(env.CODEX_HOME, 'config.toml'), 'utf8').split('\n');
		const notifyLine = toml.findIndex(line => line.startsWith('notify = ['));
		expect(notifyLine).toBeGreaterThan(0);
		expect(notifyLine).toBeLessThan(toml.indexOf('[tui]'));
		expect(toml.filter(line => line.startsWith('notify'))).toHaveLength(1);
		expect(toml[notifyLine]).toMatch(/^notify = \["\/bin\/sh", "\/\S+\/spool-hook\.sh", "--agent", "codex", "--notify"\]$/);
		// When uninstalled: both files are back to what they were
		hooksCli(['uninstall', '--codex'], env);
		expect(readFileSync(join(env.CODEX_HOME, 'config.toml'), 'utf8')).toBe(config);
		expect(JSON.parse(readFileSync(join(env.CODEX_HOME, 'hooks.json'), 'utf8'))).toEqual(usersHooks);
	});

	it('the installed notify program records a turn end when Codex appends its JSON', () => {
		const {env} = sandbox();
		hooksCli(['install', '--codex'], env);
		const line = readFileSync(join(env.CODEX_HOME, 'config.toml'), 'utf8')
			.split('\n')
			.find(text => text.startsWith('notify = '));
		// Our line is a TOML array of basic strings, which is also JSON.
		const [program = '', ...args] = JSON.parse(line?.slice('notify = '.length) ?? '[]') as string[];
		const {home, ledgerFile} = homeWithLedger();
		const result = spawnSync(program, [...args, fixture('codex/notify.json').trim()], {
			cwd: scratchDir('cr-elsewhere-'),
			env: {PATH: '/usr/bin:/bin', CONTROLROOM_HOME: home},
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		expect(result.status).toBe(0);
		expect(result.stdout.length).toBe(0);
		withLedger(ledgerFile, ledger => {
			foldSpool(ledger, join(home, 'spool'));
			const task = ledger.reader.task(sessionTaskId('codex', '01a22900-6136-7ae0-bfda-f40b735ec8b2'));
			expect(ledger.reader.eventsOf(task?.id ?? '').map(event => event.data['event'])).toEqual(['agent-turn-complete']);
		});
	});

	it('leaves a notify the user set alone, and says so', () => {
		const {env} = sandbox();
		mkdirSync(env.CODEX_HOME, {recursive: true});
		const config = 'notify = ["terminal-notifier", "-title", "Codex"]\n';
		writeFileSync(join(env.CODEX_HOME, 'config.toml'), config);
		const output = hooksCli(['install', '--codex'], env);
		expect(output).toContain('notify is already set (["terminal-notifier", "-title", "Codex"]); left as it is');
		expect(readFileSync(join(env.CODEX_HOME, 'config.toml'), 'utf8')).toBe(config);
		hooksCli(['uninstall', '--codex'], env);
		expect(readFileSync(join(env.CODEX_HOME, 'config.toml'), 'utf8')).toBe(config);
	});

	it('a notify key inside a table is not the top-level notify', () => {
		const {env} = sandbox();
		mkdirSync(env.CODEX_HOME, {recursive: true});
		writeFileSync(join(env.CODEX_HOME, 'config.toml'), '[profiles.fast]\nnotify = ["x"]\n');
		hooksCli(['install', '--codex'], env);
		const toml = readFileSync(join(env.CODEX_HOME, 'config.toml'), 'utf8');
		expect(toml.startsWith('# added by')).toBe(true);
		expect(toml.split('\n')[1]).toMatch(/^notify = \[.*spool-hook\.sh/);
	});
});

describe('controlroom hooks status', () => {
	it('says what is installed where, of which kind, and what waits in the spool', () => {
		const {env, project} = sandbox();
		const spool = join(env.CONTROLROOM_HOME, 'spool');
		expect(hooksCli(['status', '--project', project], env)).toBe(
			[
				`claude (user): ${join(env.HOME, '.claude', 'settings.json')}: not installed`,
				`claude (project): ${join(project, '.claude', 'settings.json')}: not installed`,
				`codex (from $CODEX_HOME): ${join(env.CODEX_HOME, 'hooks.json')}: not installed`,
				`codex: ${join(env.CODEX_HOME, 'config.toml')}: notify not set`,
				`spool: ${spool}: nothing waiting`,
				'spool: the hook can write there',
				'',
			].join('\n'),
		);
		hooksCli(['install'], env);
		const status = hooksCli(['status'], env);
		expect(status).toContain(
			`claude (user): ${join(env.HOME, '.claude', 'settings.json')}: installed for ${CLAUDE_EVENTS.length} events (spool hook)`,
		);
		expect(status).toContain(
			`codex (from $CODEX_HOME): ${join(env.CODEX_HOME, 'hooks.json')}: installed for ${CODEX_EVENTS.length} events (spool hook)`,
		);
		expect(status).toContain('notify installed (spool hook)');
		hooksCli(['install', '--codex', '--direct'], env);
		expect(hooksCli(['status'], env)).toContain(
			`codex (from $CODEX_HOME): ${join(env.CODEX_HOME, 'hooks.json')}: installed for ${CODEX_EVENTS.length} events (direct Node hook)`,
		);
	});
});

describe('controlroom hooks install on a file the user keeps their own way', () => {
	it('writes through a symlinked 0600 settings file: the link stays a link, the mode stays 0600, and the previous file is kept as a backup', () => {
		// Given ~/.claude/settings.json as a link into a dotfiles folder, the target 0600
		const {env} = sandbox();
		const dotfiles = join(env.HOME, 'dotfiles', 'claude');
		mkdirSync(dotfiles, {recursive: true});
		mkdirSync(join(env.HOME, '.claude'));
		const target = join(dotfiles, 'settings.json');
		const original = `${JSON.stringify(USERS_OWN, null, 2)}\n`;
		writeFileSync(target, original, {mode: 0o600});
		chmodSync(target, 0o600);
		const link = join(env.HOME, '.claude', 'settings.json');
		symlinkSync('../dotfiles/claude/settings.json', link);
		// When installed
		hooksCli(['install', '--claude'], env);
		// Then the link is still a link to the same target, which now holds our hooks and the user's
		expect(lstatSync(link).isSymbolicLink()).toBe(true);
		expect(readlinkSync(link)).toBe('../dotfiles/claude/settings.json');
		const installed = JSON.parse(readFileSync(target, 'utf8')) as Settings & typeof USERS_OWN;
		expect(installed.model).toBe('opus');
		expect(installed.hooks.SessionStart?.[0]?.hooks[0]?.command).toMatch(SPOOL_COMMAND);
		// And the mode is the user's, and the previous content is kept beside the link, just as private
		expect(statSync(target).mode & 0o777).toBe(0o600);
		const backup = `${link}.controlroom-backup`;
		expect(readFileSync(backup, 'utf8')).toBe(original);
		expect(statSync(backup).mode & 0o777).toBe(0o600);
		// And no temporary file is left in either folder
		expect(readdirSync(dotfiles)).toEqual(['settings.json']);
		expect(readdirSync(join(env.HOME, '.claude')).sort()).toEqual(['settings.json', 'settings.json.controlroom-backup']);
		// When uninstalled: the target holds the user's hooks again, still through the link, still 0600
		hooksCli(['uninstall', '--claude'], env);
		expect(lstatSync(link).isSymbolicLink()).toBe(true);
		expect(readFileSync(target, 'utf8')).toBe(original);
		expect(statSync(target).mode & 0o777).toBe(0o600);
	});

	it('keeps a 0644 file 0644 under umask 077, and creates a missing file 0600', () => {
		const {env, project, settings} = sandbox();
		writeFileSync(settings, '{}\n');
		chmodSync(settings, 0o644);
		const run = spawnSync(
			'sh',
			['-c', 'umask 077; exec "$@"', 'sh', process.execPath, BIN, 'hooks', 'install', '--claude', '--project', project],
			{
				env: {...process.env, ...env},
				encoding: 'utf8',
			},
		);
		expect(run.status).toBe(0);
		expect(statSync(settings).mode & 0o777).toBe(0o644);
		hooksCli(['install', '--claude'], env);
		expect(statSync(join(env.HOME, '.claude', 'settings.json')).mode & 0o777).toBe(0o600);
	});

	it('handles null and odd entries: a null hooks key, a null event list, null and string groups, a group without a list', () => {
		// Given settings whose hooks hold every odd shape a hand-edited file can have
		const {env, project, settings} = sandbox();
		const odd = {
			hooks: {
				Stop: [null, 'not a group', {matcher: '*'}, {hooks: null}, {hooks: [null, 42, {type: 'command', command: 'say done'}]}],
				SessionStart: null,
			},
		};
		writeFileSync(settings, JSON.stringify(odd));
		// When installed, then uninstalled
		const installed = runCli(['hooks', 'install', '--claude', '--project', project], {env});
		expect(installed.stderr).toBe('');
		expect(installed.status).toBe(0);
		const after = JSON.parse(readFileSync(settings, 'utf8')) as {hooks: Record<string, unknown[]>};
		// Then every odd entry is kept as it was, and ours is added beside them
		expect(after.hooks['Stop']?.slice(0, 5)).toEqual(odd.hooks.Stop);
		expect(after.hooks['Stop']).toHaveLength(6);
		expect(after.hooks['SessionStart']).toHaveLength(2); // the lifecycle hook and the handoff hook
		expect(hooksCli(['status', '--project', project], env)).toContain('claude (project)');
		hooksCli(['uninstall', '--claude', '--project', project], env);
		expect((JSON.parse(readFileSync(settings, 'utf8')) as typeof odd).hooks.Stop).toEqual(odd.hooks.Stop);
		// A null hooks key counts as none
		writeFileSync(settings, '{"hooks": null, "model": "opus"}');
		hooksCli(['install', '--claude', '--project', project], env);
		expect(JSON.parse(readFileSync(settings, 'utf8'))).toMatchObject({model: 'opus', hooks: {Stop: [expect.anything()]}});
	});

	it('honours CLAUDE_CONFIG_DIR: install, status and uninstall use the settings file Claude Code reads', () => {
		// Given CLAUDE_CONFIG_DIR set, as Claude Code then reads $CLAUDE_CONFIG_DIR/settings.json only
		const {env} = sandbox();
		const configDir = join(env.HOME, 'elsewhere');
		const withConfigDir = {...env, CLAUDE_CONFIG_DIR: configDir};
		// When installed
		expect(hooksCli(['install', '--claude'], withConfigDir)).toContain(
			`claude: ${join(configDir, 'settings.json')}: added hooks`,
		);
		// Then the hooks are in that file, not in ~/.claude, and status names it and why
		expect(existsSync(join(env.HOME, '.claude', 'settings.json'))).toBe(false);
		expect(hooksCli(['status'], withConfigDir)).toContain(
			`claude (user) (from $CLAUDE_CONFIG_DIR): ${join(configDir, 'settings.json')}: installed for ${CLAUDE_EVENTS.length} events`,
		);
		hooksCli(['uninstall', '--claude'], withConfigDir);
		expect(hooksCli(['status'], withConfigDir)).toContain(`${join(configDir, 'settings.json')}: not installed`);
	});

	it('registers SessionEnd for Codex, and names it missing in an older install', () => {
		const {env} = sandbox();
		expect(CODEX_EVENTS).toContain('SessionEnd');
		hooksCli(['install', '--codex'], env);
		const file = join(env.CODEX_HOME, 'hooks.json');
		const hooks = JSON.parse(readFileSync(file, 'utf8')) as Settings;
		delete hooks.hooks['SessionEnd'];
		writeFileSync(file, JSON.stringify(hooks));
		expect(hooksCli(['status'], env)).toContain('(missing: SessionEnd)');
		expect(hooksCli(['install', '--codex'], env)).toContain('added hooks for SessionEnd');
	});
});
