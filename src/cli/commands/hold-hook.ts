import {parseHoldPolicy} from '../../core/decisions/hold-policy.ts';
import {holdHookAnswer} from '../../gates/hold-hook.ts';
import {readHookStdin} from '../../producers/agent-hook/hook-main.ts';
import {parseCommandArgs} from '../args.ts';
import {openCommandLedger} from '../context.ts';
import type {CommandHelp} from '../help.ts';

export const help: CommandHelp = {
	synopsis: ['hold-hook --cwd DIR --policy POLICY [--on-budget stop|ask]'],
	description: `The PreToolUse hook \`controlroom run\` gives a Claude Code run it holds (through --settings; you
do not run it by hand). Answers at once, never waits: the answer a resumed run carries for exactly
its call, a pause when the budget is crossed (--on-budget ask), \`defer\` for a call the hold policy
holds in a headless run (recording the question), or nothing. On a fault a headless run's call is
denied with the reason; an interactive one's is left to Claude's own dialog. docs/headless-holds.md.`,
	options: [
		['--cwd DIR', "the run's folder: writes outside it are held"],
		['--policy POLICY', "the run's hold policy, base64url JSON, fixed when the run started"],
		['--on-budget stop|ask', 'ask: a crossed budget holds the next tool call and asks for more'],
	],
	exits: [['0', 'always: the answer is on stdout (Claude reads it), a fault on stderr']],
	examples: [['controlroom run -- claude -p "clean the build"', 'how it is used: the wrapper installs it for the run']],
};

function faultAnswer(message: string): string {
	// A headless run's call is never let through on a fault: PreToolUse falling through can run it.
	const isHeadless = process.env['CLAUDE_CODE_ENTRYPOINT'] === 'sdk-cli' || process.env['CLAUDE_CODE_SESSION_ATTENDED'] === '0';
	if (!isHeadless) return '';
	return JSON.stringify({
		hookSpecificOutput: {
			hookEventName: 'PreToolUse',
			permissionDecision: 'deny',
			permissionDecisionReason: `controlroom could not check this call against its hold policy (${message}); not run`,
		},
	});
}

/** `controlroom hold-hook`: the hold policy's PreToolUse hook (docs/headless-holds.md). */
export async function run(argv: readonly string[]): Promise<number> {
	let answer: string;
	try {
		const {values} = parseCommandArgs('hold-hook', argv, {
			cwd: {type: 'string'},
			policy: {type: 'string'},
			'on-budget': {type: 'string'},
		});
		const read = parseHoldPolicy(Buffer.from(values.policy ?? '', 'base64url').toString('utf8'));
		if ('problem' in read) throw new Error(`--policy: ${read.problem}`);
		const stdin = (await readHookStdin()).toString('utf8');
		const ledger = openCommandLedger(values.ledger, {mode: 'existing', busyTimeoutMs: 2000});
		try {
			answer = holdHookAnswer(
				ledger,
				{policy: read.policy, cwd: values.cwd ?? process.cwd(), onBudget: values['on-budget'] === 'ask' ? 'ask' : 'stop'},
				stdin,
				process.env,
			);
		} finally {
			ledger.close();
		}
	} catch (error) {
		const message = (error as Error).message.split('\n')[0] ?? 'unknown fault';
		process.stderr.write(`controlroom hold-hook: ${message}\n`);
		answer = faultAnswer(message);
	}
	if (answer !== '') process.stdout.write(`${answer}\n`);
	return 0;
}
