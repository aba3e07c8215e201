import {terminalSafe, terminalSafeJson} from '../../core/terminal-text.ts';
import {MESSAGE_MAX_CHARS, MessageError, messageTextProblem, sendAsPerson} from '../../gates/messages.ts';
import {parseCommandArgs, taskArgument} from '../args.ts';
import {out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import {gateCall} from '../gate-call.ts';
import type {CommandHelp} from '../help.ts';
import {openReadingLedger} from '../reading-ledger.ts';

export const help: CommandHelp = {
	synopsis: ['send TASK MESSAGE [--json]'],
	description: `A word to a running agent: the message is given to it at its next turn boundary, as the board's
m does. A Claude Code or Codex session gets it from its Stop hook (hooks install puts it there):
when the agent ends its turn, the hook has it go on with the message as its next input. A held
headless run gets it when it resumes and ends its turn. Only a person at a terminal sends. The
message and its delivery are in the task's timeline; the text is kept as given and shown escaped.
MESSAGE may hold several lines, up to ${MESSAGE_MAX_CHARS.toLocaleString('en-US')} characters. See docs/messages.md.`,
	options: [['--json', 'the message queued as JSON: {taskId, messageId}']],
	exits: [
		['0', 'queued: the agent gets it at its next turn boundary'],
		['1', 'refused: no such task, it has ended, or it reports through no agent hooks (a plain command, a helper)'],
		['77', 'refused: an agent asked (only a person at a terminal sends; recorded, and shown on the board; docs/security.md)'],
		[
			'64',
			`bad command line (no TASK or MESSAGE, an empty MESSAGE, one over ${MESSAGE_MAX_CHARS.toLocaleString('en-US')} characters, a TASK that matches several tasks), or no ledger at --ledger PATH`,
		],
	],
	examples: [
		['controlroom send w-3f2a "use the v2 endpoint, not v1"', 'the agent reads it when it ends its turn'],
		['controlroom send \'fix export\' "$(tail -50 ci.log)"', 'the end of a log, to the task titled fix export'],
	],
};

/** `controlroom send TASK MESSAGE` (docs/messages.md). */
export async function run(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('send', argv, {json: {type: 'boolean'}});
	if (positionals.length !== 2) throw new CliError('send: expected TASK and MESSAGE (quote the message)', USAGE_EXIT);
	const ref = taskArgument('send', positionals, 1);
	const text = positionals[1] ?? '';
	const problem = messageTextProblem(text);
	if (problem !== null) throw new CliError(`send: ${problem}`, USAGE_EXIT);
	const ledger = openReadingLedger(values.ledger, 'existing');
	try {
		const queued = await gateCall(() => {
			try {
				return sendAsPerson(ledger, {taskRef: ref, text, source: 'cli'});
			} catch (error) {
				if (error instanceof MessageError) throw new CliError(error.message, error.exitCode);
				throw error;
			}
		});
		if (values.json) out(terminalSafeJson({version: 1, taskId: queued.taskId, messageId: queued.messageId}, 2));
		else out(`sent ${queued.messageId} to ${terminalSafe(queued.taskId)}: it gets it at its next turn boundary`);
		return 0;
	} finally {
		ledger.close();
	}
}
