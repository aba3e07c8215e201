import {answerDecision} from '../../gates/decisions.ts';
import {boundedText, parseCommandArgs} from '../args.ts';
import {openCommandLedger, out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import type {CommandHelp} from '../help.ts';
import {gateCall} from '../gate-call.ts';

export const help: CommandHelp = {
	synopsis: ['decide ID allow|deny [--reason TEXT] [--headroom TOKENS] [--json]'],
	description: `Answers a question an agent is waiting on, as a and x do in the board's Decisions panel: a
permission prompt of an interactive Claude Code session, a headless run's deferred call, a budget
crossed. ID is the question's id (d-...) or a unique prefix of it; snapshot lists them in
decisions[]. The answer is bound to the exact arguments the question was asked with and is used
once; a deny's reason reaches the agent. See docs/decisions.md.`,
	options: [
		['--reason TEXT', 'why (one line): a deny gives it to the agent, which can adapt'],
		['--headroom TOKENS', 'a budget question allowed: the tokens added to the budget'],
		['--json', 'the answered question as JSON (the shape of snapshot decisions[])'],
	],
	exits: [
		['0', 'answered'],
		['1', 'refused: no such question, or it is no longer waiting (answered, withdrawn, past its window)'],
		[
			'77',
			'refused: an agent asked (only a person at a terminal says yes; recorded, and shown on the board; docs/security.md), or approvals: passkey is on and the answer is not passkey-signed (the line names its web page)',
		],
		['64', 'bad command line (no ID, an answer other than allow or deny), or no ledger at --ledger PATH'],
	],
	examples: [
		['controlroom decide d-3f2a9c01b2e4 allow', 'the waiting agent runs that call, once'],
		['controlroom decide d-3f2a deny --reason "not in this folder"', 'the agent is told no, and why'],
	],
};

function headroomOf(text: string | undefined): number | null {
	if (text === undefined) return null;
	const value = Number(text.replace(/^\+/, ''));
	if (!/^\+?\d+$/.test(text.trim()) || !Number.isSafeInteger(value) || value <= 0) {
		throw new CliError(`decide: --headroom: expected a whole number of tokens above 0, got '${text}'`, USAGE_EXIT);
	}
	return value;
}

/** `controlroom decide ID allow|deny [--reason TEXT]` (docs/decisions.md). */
export async function run(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('decide', argv, {
		reason: {type: 'string'},
		headroom: {type: 'string'},
		json: {type: 'boolean'},
	});
	const [ref, answer] = positionals;
	if (ref === undefined || answer === undefined || positionals.length > 2) {
		throw new CliError('decide: expected ID and allow or deny', USAGE_EXIT);
	}
	if (answer !== 'allow' && answer !== 'deny') throw new CliError(`decide: expected allow or deny, got '${answer}'`, USAGE_EXIT);
	if (values.reason !== undefined) boundedText('--reason', values.reason);
	const headroom = headroomOf(values.headroom);
	if (headroom !== null && answer === 'deny') throw new CliError('decide: --headroom goes with allow', USAGE_EXIT);
	const ledger = openCommandLedger(values.ledger, {mode: 'existing'});
	try {
		const decision = await gateCall(() => answerDecision(ledger, ref, answer, values.reason ?? null, headroom, {source: 'cli'}));
		if (values.json) out(JSON.stringify({version: 1, id: decision.id, answer: decision.answer}, null, 2));
		else out(`${answer === 'allow' ? 'allowed' : 'denied'} ${decision.id} (${decision.tool} for ${decision.taskId})`);
		return 0;
	} finally {
		ledger.close();
	}
}
