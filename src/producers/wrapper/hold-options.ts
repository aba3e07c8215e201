// How a wrapped run is held: its own module, so the wrapper's options (options.ts) and the hold
// itself (held.ts) both import it and neither imports the other.

/** A question of a wrapped run that holds it: a deferred call, or its budget crossed. */
export type HeldQuestion = {
	readonly decisionId: string;
	/** A collision held in a headless run is carried as a deferred call is. */
	readonly kind: 'deferred' | 'budget' | 'collision';
	readonly session: string | null;
	readonly toolUseId: string | null;
	readonly argsHash: string;
	/** Answered and not carried out yet; null while it waits. */
	readonly isAnswered: boolean;
};

/** An answer taken from the ledger: used once, by this wrapper. */
export type TakenAnswer = {readonly answer: 'allow' | 'deny'; readonly reason: string | null; readonly headroom: number | null};

/**
 * The decisions the wrapper needs, given by its caller (the producers never import the gates:
 * docs/architecture.md); the answer is taken through the person gate's one-use rule.
 */
export type HeldDecisions = {
	/** The task's question that holds it (open, or answered and not yet used), the oldest first. */
	waiting(taskId: string): HeldQuestion | null;
	/** Takes the answer for exactly this hash, once; null when another caller took it or the hash differs. */
	take(decisionId: string, argsHash: string): TakenAnswer | null;
};

/** How a wrapped headless Claude run is held (docs/headless-holds.md). */
export type HoldOptions = {
	/** A denied call: resume the session with the reason (the agent adapts), or stop the task. */
	readonly onDeny: 'resume' | 'stop';
	/** The budget crossed: stop the run (exit 125), or pause it and ask. */
	readonly onBudget: 'stop' | 'ask';
	/** `claude -p`: a held call ends the process, and the wrapper waits and resumes it. */
	readonly isHeadless: boolean;
	/** CMD is `claude` itself (its prompt is its last positional), not a launcher that runs it. */
	readonly isClaude: boolean;
	readonly decisions: HeldDecisions;
};
