import {existsSync} from 'node:fs';
import {deliverPending, deliveryReason} from '../../gates/messages.ts';
import {openLedger} from '../../ledger/open-ledger.ts';
import {ledgerPath} from '../../ledger/paths.ts';
import {sessionTaskOf} from '../../ledger/payload-mapping.ts';
import {MAX_LINE_BYTES} from '../../ledger/payload-limits.ts';
import {readHookStdin} from '../../producers/agent-hook/hook-stdin.ts';
import type {CommandHelp} from '../help.ts';

export const help: CommandHelp = {
	synopsis: ['message-hook [--agent claude|codex]'],
	description: `The Stop hook that gives a running agent the messages a person sent it (controlroom send, the
board's m), installed by \`hooks install\` for Claude Code and Codex; not for a person to run. Its
shell part starts Node only when the mailbox beside the ledger holds a message not known
delivered. It answers {"decision":"block","reason":MESSAGES}: the agent goes on with the messages
as its next input, and each is recorded delivered once. See docs/messages.md.`,
	options: [['--agent claude|codex', 'whose session it is (default claude)']],
	exits: [['0', 'always: the answer on stdout, or nothing (the agent stops as without the hook)']],
	examples: [['controlroom hooks install', 'installs it on Stop for Claude Code and Codex, beside the lifecycle hook']],
};

const isRecord = (value: unknown): value is Record<string, unknown> =>
	value !== null && typeof value === 'object' && !Array.isArray(value);

/** `controlroom message-hook` (docs/messages.md): stdout is the agent's to read, so only the answer goes there. */
export async function run(argv: readonly string[]): Promise<number> {
	try {
		const agentAt = argv.indexOf('--agent');
		const agent = argv[agentAt + 1] === 'codex' && agentAt >= 0 ? 'codex' : 'claude';
		const stdin = await readHookStdin(MAX_LINE_BYTES);
		let payload: unknown = null;
		try {
			payload = JSON.parse(stdin.toString('utf8'));
		} catch {
			return 0;
		}
		if (!isRecord(payload) || payload['hook_event_name'] !== 'Stop') return 0;
		const session = typeof payload['session_id'] === 'string' && payload['session_id'] !== '' ? payload['session_id'] : null;
		if (session === null) return 0;
		const file = ledgerPath(undefined, process.env);
		if (!existsSync(file)) return 0;
		const wrapperTaskId = process.env['CONTROLROOM_TASK_ID']?.trim() || null;
		const taskId = sessionTaskOf(agent, session, {wrapperTaskId});
		const ledger = openLedger(file, {busyTimeoutMs: 2000, mustExist: true});
		try {
			const given = deliverPending(ledger, taskId, {how: 'stop-hook', agent, session});
			if (given.length > 0) process.stdout.write(`${JSON.stringify({decision: 'block', reason: deliveryReason(given)})}\n`);
			if (process.env['CONTROLROOM_DEBUG'])
				process.stderr.write(`controlroom message-hook: ${given.length} message(s) delivered to ${taskId}\n`);
		} finally {
			ledger.close();
		}
	} catch (error) {
		process.stderr.write(`controlroom message-hook: ${(error as Error).message.split('\n')[0] ?? ''}\n`);
	}
	return 0;
}
