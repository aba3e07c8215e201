import {agentNameOf} from './process-tree.ts';

// Who is asking, when a gate is asked to say yes (docs/security.md, "Who is asking"). Pure: the
// facts are gathered by src/producers/actor-facts.ts, the rule is here, and every gate function
// calls it through src/gates/person-gate.ts before it writes anything.

/**
 * Environment variables the agents set for the commands their tools run, as seen with the real
 * CLIs (Claude Code 2.1.328's Bash tool, Codex 0.169's shell tool), and the ones controlroom sets
 * for what it runs: a process carrying any of them runs on an agent's behalf. Only these exact
 * names: a person may export Claude Code's own settings (CLAUDE_CODE_USE_BEDROCK, ...) in a shell.
 */
export const AGENT_ENV_MARKERS: readonly string[] = [
	'CLAUDECODE',
	'CLAUDE_PID',
	'CLAUDE_CODE_SESSION_ID',
	'CLAUDE_CODE_CHILD_SESSION',
	'CLAUDE_CODE_ENTRYPOINT',
	'CLAUDE_CODE_EXECPATH',
	'CLAUDE_CODE_MESSAGING_SOCKET',
	'CODEX_SESSION_ID',
	'CODEX_THREAD_ID',
	'CODEX_TOOL_CALL_ID',
	'CODEX_CI',
	// `controlroom run` gives its child its task id; a reviewer gets its packet.
	'CONTROLROOM_TASK_ID',
	'CONTROLROOM_REVIEW_PACKET',
];

/** Process names that are agents wherever they appear above the asker. */
export const AGENT_PROCESS_NAMES: ReadonlySet<string> = new Set(['claude', 'codex']);

/** One process above the asker (parent first), as /proc tells it. */
export type AncestorFact = {
	readonly pid: number;
	readonly startTime: number;
	/** The kernel's short name (comm). */
	readonly name: string;
	/** Its argv, or null when it cannot be read. */
	readonly argv: readonly string[] | null;
};

/** What the asker's stdin is. */
export type TerminalFact = {
	readonly isTty: boolean;
	/** Stdin is the asker's controlling terminal (not some other terminal opened by path). */
	readonly isControlling: boolean;
	/** The asker is in that terminal's foreground process group. */
	readonly isForeground: boolean;
};

/** A process the ledger recorded for a task (its agent), found as the asker or above it. */
export type TaskProcessFact = {readonly taskId: string; readonly pid: number};

/** Who asked on a fleet board, as that board's own check found it on its host (docs/fleet.md). */
export type FleetAsker = {readonly isPerson: boolean; readonly user: string | null; readonly reason: string};

/** Where the yes comes in: this process's own terminal, or a request from a fleet board carried out by `sync`. */
export type Door =
	| {readonly kind: 'terminal'}
	/** A web board's signed-in session, started from a link a person printed at a terminal (docs/web.md). */
	| {readonly kind: 'web'; readonly sessionId: string; readonly person: string}
	| {
			readonly kind: 'fleet';
			readonly requestId: number;
			readonly requestedBy: string;
			readonly asker: FleetAsker | null;
	  };

/** Everything the actor rule looks at. */
export type ActorFacts = {
	readonly pid: number;
	readonly user: string | null;
	readonly uid: number | null;
	/** Nearest first, up to the first process without a parent (init, a subreaper). */
	readonly ancestors: readonly AncestorFact[];
	/** Names from AGENT_ENV_MARKERS present in the asker's environment. */
	readonly markers: readonly string[];
	readonly terminal: TerminalFact;
	readonly taskProcesses: readonly TaskProcessFact[];
	readonly door: Door;
};

/** The agent an asker was found to be, or to run for, where one process names it. */
export type AgentFound = {readonly pid: number; readonly name: string | null; readonly taskId: string | null};

/** The actor rule's answer. */
export type Actor =
	| {readonly kind: 'person'; readonly user: string | null; readonly uid: number | null; readonly reason: string}
	| {readonly kind: 'agent'; readonly reason: string; readonly agent: AgentFound | null};

/** An ancestor's agent name: its kernel name or argv (`claude`, `codex`, `node .../codex.js`), or a platform build (`codex-x86_64-un`). */
function agentName(ancestor: AncestorFact): string | null {
	const exact = agentNameOf(ancestor.name, ancestor.argv, AGENT_PROCESS_NAMES);
	if (exact !== null) return exact;
	for (const name of AGENT_PROCESS_NAMES) {
		if (ancestor.name.startsWith(`${name}.`) || ancestor.name.startsWith(`${name}-`)) return name;
	}
	return null;
}

function terminalProblem(terminal: TerminalFact): string | null {
	if (!terminal.isTty) return 'its stdin is not a terminal';
	if (!terminal.isControlling) return 'its stdin is a terminal, but not its own controlling terminal';
	if (!terminal.isForeground) return 'it is not in the foreground of its terminal';
	return null;
}

/**
 * Decides who asks for a yes: a person at a terminal, or an agent (anything not shown to be a
 * person counts as one). An agent's environment marker, a task's recorded process or an agent
 * process among the asker's parents makes it an agent; otherwise it is a person only on a terminal
 * of its own, in the foreground (or, through the fleet, when the fleet board found a person).
 */
export function decideActor(facts: ActorFacts): Actor {
	if (facts.markers.length > 0) {
		return {
			kind: 'agent',
			reason: `its environment carries ${facts.markers.join(', ')}, which an agent sets for the commands it runs`,
			agent: null,
		};
	}
	const task = facts.taskProcesses[0];
	if (task) {
		const who = task.pid === facts.pid ? 'it is' : `process ${task.pid} above it is`;
		const ancestor = facts.ancestors.find(candidate => candidate.pid === task.pid);
		return {
			kind: 'agent',
			reason: `${who} the process of task ${task.taskId}`,
			agent: {pid: task.pid, name: ancestor?.name ?? null, taskId: task.taskId},
		};
	}
	for (const ancestor of facts.ancestors) {
		const name = agentName(ancestor);
		if (name !== null) {
			return {
				kind: 'agent',
				reason: `process ${ancestor.pid} (${ancestor.name}) above it is ${name === 'claude' ? 'Claude Code' : 'Codex'}`,
				agent: {pid: ancestor.pid, name, taskId: null},
			};
		}
	}
	if (facts.door.kind === 'web') {
		const {sessionId, person} = facts.door;
		return {
			kind: 'person',
			user: person,
			uid: null,
			reason: `web session ${sessionId} of ${person}, started from a sign-in link ${person} printed at a terminal`,
		};
	}
	if (facts.door.kind === 'fleet') {
		const {asker, requestId, requestedBy} = facts.door;
		if (asker?.isPerson) {
			return {
				kind: 'person',
				user: asker.user,
				uid: null,
				reason: `fleet request #${requestId} from ${requestedBy}, where ${asker.reason}`,
			};
		}
		return {
			kind: 'agent',
			reason: `fleet request #${requestId} from ${requestedBy}: ${asker ? asker.reason : 'it does not say that a person asked'}`,
			agent: null,
		};
	}
	const problem = terminalProblem(facts.terminal);
	if (problem !== null) return {kind: 'agent', reason: problem, agent: null};
	return {
		kind: 'person',
		user: facts.user,
		uid: facts.uid,
		reason: `${facts.user ?? `uid ${facts.uid ?? '?'}`} at a terminal, no agent above it`,
	};
}

/** Exit status of a yes refused because an agent asked (EX_NOPERM). */
export const NOT_A_PERSON_EXIT = 77;

/** A gate refused a yes because the one asking is not a person; the attempt is on the ledger. */
export class NotAPersonError extends Error {
	readonly actor: Actor & {readonly kind: 'agent'};
	constructor(message: string, actor: Actor & {readonly kind: 'agent'}) {
		super(message);
		this.name = 'NotAPersonError';
		this.actor = actor;
	}
}
