import {writeHandoff} from '../../handoff/handoff-writer.ts';
import {terminalSafe} from '../../core/terminal-text.ts';
import {parseCommandArgs, taskArgument} from '../args.ts';
import {out, resolveForCommand} from '../context.ts';
import {CliError} from '../errors.ts';
import type {CommandHelp} from '../help.ts';
import {openReadingLedger} from '../reading-ledger.ts';

export const help: CommandHelp = {
	synopsis: ['handoff TASK'],
	description: `Writes a handoff for a session that has ended: a transfer contract in Markdown, into its
repository's .controlroom/handoffs/ (a new file each time, never overwritten), with what was done
(commits, files changed, commands and their exit codes), what is in progress (open claims,
uncommitted files), what is blocked, the commands that failed, and the agent's last words marked
as its claim; what the ledger and git do not record is written as unknown. Recorded in the ledger
(handoff.written, with the file's sha256). A person or an agent may run it: it records facts and
approves nothing. Sessions that end are given one automatically (docs/handoffs.md).`,
	options: [],
	exits: [
		['0', 'written; its path is printed'],
		[
			'1',
			'none written: no such task, it has not ended, it only read, or it ran outside a git repository (the reason is printed)',
		],
		['64', 'bad command line (no TASK, a TASK that matches several tasks), or no ledger at --ledger PATH'],
	],
	examples: [['controlroom handoff c-d7db9fab3392', 'writes .controlroom/handoffs/2026-12-03T17-32-37.428Z-c-d7db9fab3392.md']],
};

/** `controlroom handoff TASK`. */
export async function run(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('handoff', argv, {});
	const ref = taskArgument('handoff', positionals);
	const ledger = openReadingLedger(values.ledger, 'existing');
	try {
		const task = resolveForCommand('handoff', ledger, ref);
		if (!task) throw new CliError(`handoff: no task '${ref}' in ${ledger.path}`, 1);
		const result = writeHandoff(ledger, task, 'command');
		if (result.outcome !== 'written')
			throw new CliError(`handoff: ${result.outcome === 'none' ? result.reason : 'already written'}`, 1);
		out(terminalSafe(`handoff written: ${result.path} (sha256 ${result.sha256.slice(0, 12)})`));
		return 0;
	} finally {
		ledger.close();
	}
}
