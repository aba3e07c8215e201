import * as z from 'zod/mini';
import {dueHandoffs} from '../../handoff/due-handoffs.ts';
import {handoffContext, takeLatestHandoff} from '../../handoff/handoff-take.ts';
import {openLedger} from '../../ledger/open-ledger.ts';
import {ledgerPath, spoolDir} from '../../ledger/paths.ts';
import {foldSpool} from '../../ledger/spool.ts';
import {readHookStdin} from '../../producers/agent-hook/hook-stdin.ts';
import type {CommandHelp} from '../help.ts';

export const help: CommandHelp = {
	synopsis: ['handoff-hook'],
	description: `The command Claude Code runs on SessionStart (installed by \`controlroom hooks install\`; you do
not run it by hand). On a new session (source startup, not a resume, a clear or a compact) it
writes the handoffs of sessions that ended and have none yet, then takes the latest handoff of the
session's repository if no session took it, and prints it as the session's additional context
(hookSpecificOutput.additionalContext), which Claude Code puts in the model's first request. The
take is recorded (handoff.taken); of two sessions starting at once, one takes it. Prints nothing
when there is nothing to give; always exits 0 (docs/handoffs.md).`,
	options: [],
	exits: [['0', 'always: a session must start whatever happens here (stderr says what went wrong)']],
	examples: [['controlroom hooks install --claude', 'installs it beside the lifecycle hook (docs/hooks.md)']],
};

/** The largest SessionStart payload read: it is a few hundred bytes. */
const MAX_PAYLOAD_BYTES = 256 * 1024;

const SessionStart = z.looseObject({
	hook_event_name: z.optional(z.string()),
	session_id: z.optional(z.string()),
	source: z.optional(z.string()),
	cwd: z.optional(z.string()),
});

/** `controlroom handoff-hook`: SessionStart's handoff, as additional context. */
export async function run(): Promise<number> {
	try {
		const raw = (await readHookStdin(MAX_PAYLOAD_BYTES)).toString('utf8');
		const parsed = SessionStart.safeParse(JSON.parse(raw));
		if (!parsed.success) return 0;
		const {hook_event_name: event, source, cwd, session_id: session} = parsed.data;
		if (event !== 'SessionStart' || source !== 'startup' || !cwd) return 0;
		// The spool hook never makes the ledger: the first session's events may all still be in the spool.
		const ledger = openLedger(ledgerPath(undefined), {busyTimeoutMs: 2000});
		try {
			// The session that ended before this one may still be in the spool: its handoff is written first.
			foldSpool(ledger, spoolDir(ledger.path));
			dueHandoffs(ledger).pass();
			const taken = takeLatestHandoff(ledger, cwd, session ?? 'a new session', 'SessionStart');
			if (taken === null) return 0;
			process.stdout.write(
				JSON.stringify({hookSpecificOutput: {hookEventName: 'SessionStart', additionalContext: handoffContext(taken)}}),
			);
		} finally {
			ledger.close();
		}
	} catch (error) {
		process.stderr.write(`controlroom handoff-hook: ${(error as Error).message.split('\n')[0]}\n`);
	}
	return 0;
}
