import {DEFAULT_DECISION_WINDOW_S, runPermissionHook} from '../../gates/permission-hook.ts';
import {ledgerPath} from '../../ledger/paths.ts';
import {MAX_LINE_BYTES} from '../../ledger/payload-limits.ts';
import {readHookStdin} from '../../producers/agent-hook/hook-stdin.ts';
import {parseCommandArgs} from '../args.ts';
import type {CommandHelp} from '../help.ts';
import {stopOnSignals} from '../signals.ts';

export const help: CommandHelp = {
	synopsis: ['permission-hook [--window SECONDS]'],
	description: `Claude Code's PermissionRequest hook, installed by \`hooks install --claude\`; not for a person to
run. It records the question of the permission dialog on screen and waits, beside the dialog, for a
person's answer from the board's Decisions panel or \`controlroom decide\`, then gives it to Claude.
With no answer within the window, no ledger, or any fault it prints nothing and Claude's own dialog
answers, as without it: nothing is allowed on a timeout. Answered in the pane first, the question
leaves the queue. See docs/decisions.md.`,
	options: [['--window SECONDS', `how long to wait for an answer from controlroom (default ${DEFAULT_DECISION_WINDOW_S})`]],
	exits: [['0', 'always: the answer on stdout, or nothing (the agent must never see the hook fail)']],
	examples: [
		[
			'controlroom hooks install --claude',
			'installs it for Claude Code (with the lifecycle hook), which runs it at each permission dialog',
		],
	],
};

function windowSeconds(text: string | undefined): number {
	const value = Number(text);
	return text !== undefined && /^\d+$/.test(text) && value > 0 && value <= 86_400 ? value : DEFAULT_DECISION_WINDOW_S;
}

/** `controlroom permission-hook` (docs/decisions.md): stdout is Claude's to read, so only the answer goes there. */
export async function run(argv: readonly string[]): Promise<number> {
	const stop = stopOnSignals();
	try {
		let values: {ledger?: string; window?: string} = {};
		try {
			values = parseCommandArgs('permission-hook', argv, {window: {type: 'string'}}).values;
		} catch (error) {
			process.stderr.write(`controlroom permission-hook: ${(error as Error).message}; using the defaults\n`);
		}
		const stdin = await readHookStdin(MAX_LINE_BYTES);
		let payload: unknown = null;
		try {
			payload = JSON.parse(stdin.toString('utf8'));
		} catch {
			process.stderr.write('controlroom permission-hook: stdin is not JSON; the dialog answers\n');
			return 0;
		}
		const outcome = await runPermissionHook({
			payload,
			ledgerFile: ledgerPath(values.ledger, process.env),
			env: process.env,
			windowMs: windowSeconds(values.window) * 1000,
			signal: stop.signal,
		});
		if (outcome.kind === 'answered') process.stdout.write(`${outcome.stdout}\n`);
		else if (process.env['CONTROLROOM_DEBUG']) process.stderr.write(`controlroom permission-hook: ${outcome.why}\n`);
		return 0;
	} catch (error) {
		process.stderr.write(`controlroom permission-hook: ${(error as Error).message.split('\n')[0] ?? ''}\n`);
		return 0;
	} finally {
		stop.dispose();
	}
}
