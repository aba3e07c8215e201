import type {CommandHelp} from '../help.ts';

export const help: CommandHelp = {
	synopsis: ['hook [--agent claude|codex] [--notify JSON]'],
	description: `The command Claude Code and Codex run on each lifecycle event (installed by \`controlroom hooks
install\`; you do not run it by hand). Reads the event's JSON from stdin and records it: the session
as a task, the event on its timeline. Never blocks the agent: always exits 0, prints nothing on
stdout, and when the ledger is busy writes the event to the spool folder for the next fold.
\`hook --help\` prints this and records nothing.`,
	options: [
		['--agent claude|codex', 'whose payload it is (guessed from the payload when absent)'],
		['--notify JSON', "Codex's notify: the JSON is the last argument, and stdin is not read"],
	],
	exits: [['0', 'always, even when the event could not be recorded (stderr says why; the agent must not fail because of us)']],
	examples: [
		[
			'echo \'{"hook_event_name":"SessionStart","session_id":"s1","cwd":"/tmp"}\' | controlroom hook',
			'records a Claude Code session start by hand (how the hooks call it)',
		],
		['controlroom hooks install', 'installs it for Claude Code and Codex (docs/hooks.md)'],
	],
};

/** `controlroom hook` reached through the CLI table (bin/controlroom sends only `hook --help` here): the hook itself. */
export async function run(argv: readonly string[]): Promise<number> {
	const hook = await import('../../producers/agent-hook/hook-main.ts');
	return hook.main(argv);
}
