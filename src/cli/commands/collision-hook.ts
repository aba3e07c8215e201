import type {CollisionPolicy} from '../../core/decisions/collision.ts';
import {runCollisionHook} from '../../gates/collision-hook.ts';
import {ledgerPath} from '../../ledger/paths.ts';
import {MAX_LINE_BYTES} from '../../ledger/payload-limits.ts';
import {readHookStdin} from '../../producers/agent-hook/hook-stdin.ts';
import {configPath, readConfigFile} from '../config-file.ts';
import type {CommandHelp} from '../help.ts';

export const help: CommandHelp = {
	synopsis: ['collision-hook'],
	description: `Claude Code's PreToolUse hook for Edit, Write, MultiEdit and NotebookEdit, installed by \`hooks
install --claude\`; not for a person to run. When another live task edited the same file and has
not committed it, the call becomes a collision question in the Decisions queue: an interactive
session is denied with the reason while the question waits, a wrapped \`claude -p\` is deferred
and resumed with the answer. The config file's \`collisions\` sets hold, warn or off per checkout.
See docs/decisions.md, "Collisions".`,
	options: [],
	exits: [['0', 'always: the answer on stdout, or nothing (the call goes on as without the hook)']],
	examples: [['controlroom hooks install --claude', 'installs it for Claude Code, with the lifecycle hook']],
};

/** `collisions` from the config file; a bad file is one line on stderr and the built-in policy (hold). */
function policies(): Readonly<Record<string, CollisionPolicy>> {
	try {
		return readConfigFile(configPath())?.values.collisions ?? {};
	} catch (error) {
		process.stderr.write(`controlroom collision-hook: ${(error as Error).message.split('\n')[0] ?? ''}; holding collisions\n`);
		return {};
	}
}

/** `controlroom collision-hook` (docs/decisions.md, "Collisions"): stdout is Claude's to read, so only the answer goes there. */
export async function run(_argv: readonly string[]): Promise<number> {
	try {
		const stdin = await readHookStdin(MAX_LINE_BYTES);
		let payload: unknown = null;
		try {
			payload = JSON.parse(stdin.toString('utf8'));
		} catch {
			return 0;
		}
		const outcome = runCollisionHook({
			payload,
			ledgerFile: ledgerPath(undefined, process.env),
			env: process.env,
			policies: policies(),
		});
		if (outcome.stdout !== '') process.stdout.write(`${outcome.stdout}\n`);
		if (process.env['CONTROLROOM_DEBUG']) process.stderr.write(`controlroom collision-hook: ${outcome.why}\n`);
		return 0;
	} catch (error) {
		process.stderr.write(`controlroom collision-hook: ${(error as Error).message.split('\n')[0] ?? ''}\n`);
		return 0;
	}
}
