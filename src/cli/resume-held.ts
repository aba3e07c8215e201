import {EventType} from '../core/events.ts';
import {isEnded} from '../core/status.ts';
import {heldDecisionsOf} from '../gates/held-decisions.ts';
import type {Ledger} from '../ledger/open-ledger.ts';
import {controlroomHome} from '../ledger/paths.ts';
import {guessAgent, AGENT_KINDS, type AgentKind} from '../producers/agent-kind.ts';
import {processStartTime} from '../producers/proc-table.ts';
import {DEFAULT_HEARTBEAT_MS, DEFAULT_WRAPPER_GRACE_MS} from '../producers/wrapper/options.ts';
import {resumeHeldTask} from '../producers/wrapper/run.ts';
import {CliError} from './errors.ts';

/** Whether a process recorded with its start time still runs (the start time guards against a reused PID). */
function stillRuns(pid: number | null | undefined, startTime: number | null | undefined): boolean {
	if (!pid) return false;
	const now = processStartTime(pid);
	return now !== null && (startTime === null || startTime === undefined || now === startTime);
}

/**
 * `controlroom run --resume TASK`: carries on a held run whose wrapper is gone, from what its
 * `task.registered` recorded (docs/headless-holds.md, "Crash safety"). Refused (exit 1, one line)
 * for a task that is not held, has ended, or whose wrapper still waits.
 */
export async function resumeFromLedger(ledger: Ledger, taskId: string, notice: (line: string) => void): Promise<number> {
	const task = ledger.reader.resolveTask(taskId);
	if (!task) throw new CliError(`--resume: no task '${taskId}' in ${ledger.path}`);
	if (isEnded(task.status)) throw new CliError(`--resume: task ${task.id} has ended (${task.status}); nothing to resume`);
	const registered = ledger.reader.firstEventOf(task.id, EventType.registered)?.data;
	const hold = registered?.hold;
	const argv = registered?.argv ?? [];
	if (!registered || !hold || !hold.args || argv.length === 0)
		throw new CliError(`--resume: task ${task.id} is not a held Claude run (controlroom run -- claude -p ...)`);
	// The latest wrapper's own start: the agent's hooks record starts of their own, with no wrapper in them.
	const started = ledger.reader
		.latestEventsOf(task.id, [EventType.started], 50)
		.find(event => typeof event.data.wrapperPid === 'number')?.data;
	const wrapper = started?.wrapperPid ?? registered.wrapperPid;
	const wrapperStart = started?.wrapperStartTime ?? registered.wrapperStartTime;
	if (wrapper !== process.pid && stillRuns(wrapper, wrapperStart))
		throw new CliError(`--resume: task ${task.id}'s wrapper (pid ${wrapper}) still runs and waits for the answer`);
	const command = argv[0] ?? '';
	const agent = (AGENT_KINDS as readonly string[]).includes(registered.agent ?? '')
		? (registered.agent as AgentKind)
		: guessAgent(command);
	return resumeHeldTask({
		ledger,
		taskId: task.id,
		command,
		args: hold.args,
		title: registered.title ?? null,
		steps: registered.steps ?? null,
		budget: registered.budget ?? task.budget ?? 0,
		budgetCovers: registered.budgetCovers === 'session' ? 'session' : 'run',
		agent,
		role: registered.role === 'reviewer' || registered.role === 'tripwire' ? registered.role : 'worker',
		cwd: registered.cwd ?? process.cwd(),
		wait: true,
		slots: 2,
		home: controlroomHome(),
		heartbeatMs: DEFAULT_HEARTBEAT_MS,
		graceMs: DEFAULT_WRAPPER_GRACE_MS,
		logFile: null,
		notice,
		argv,
		hold: {
			onDeny: hold.onDeny === 'stop' ? 'stop' : 'resume',
			onBudget: hold.onBudget === 'ask' ? 'ask' : 'stop',
			isHeadless: hold.isHeadless ?? true,
			isClaude: hold.isClaude ?? false,
			decisions: heldDecisionsOf(ledger),
		},
	});
}
